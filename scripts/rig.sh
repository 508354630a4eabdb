#!/usr/bin/env bash
# rig.sh — hapticsynth's own test rig: a private PulseAudio server with null
# sinks, reached through the ALSA `pulse` plugin under the project's PCM names.
# There is no sound card on CI machines; the server paces in real time and its
# sinks' monitors let a test record exactly what was played.
#
#   scripts/rig.sh <command...>     start the rig, run the command inside it, stop the server
#                                   (also when the command fails); exits with the command's status
#   scripts/rig.sh shell            same, with an interactive shell
#
# Inside the rig (these need HAPTICSYNTH_RIG_DIR, which the rig exports):
#   scripts/rig.sh stop-server      SIGKILL the server (a crash, for fault tests); waits until it is gone
#   scripts/rig.sh start-server     start it again on the same socket; waits until it answers
#   scripts/rig.sh server-pid       print the running server's PID
#
# Environment the command sees:
#   ALSA_CONFIG_PATH         alsa.conf + the rig's asound.conf (defines the PCM names below)
#   HAPTICSYNTH_RIG_DIR      the rig's temporary folder (socket, configs, server log, PID file)
#   HAPTICSYNTH_RIG_CTL      absolute path of this script (for stop-server / start-server)
#   HAPTICSYNTH_RIG_OUT / _IN        sink A, 3 channels (stereo + haptic, the default layout with audio)
#   HAPTICSYNTH_RIG_OUT_B / _IN_B    sink B, stereo (two-device tests)
#   HAPTICSYNTH_RIG_OUT_MONO / _IN_MONO  mono sink (haptic only, the default layout without audio)
#   HAPTICSYNTH_RIG_OUT_4CH / _IN_4CH    4-channel sink (user channel maps)
#   HAPTICSYNTH_RIG_RAW_OUT / _RAW_IN    sink A's pulse PCMs without the plug layer
#   HAPTICSYNTH_RIG_BAD_SINK a PCM naming a sink that does not exist (fails at hw_params, -EIO)
#   HAPTICSYNTH_RIG_STEREO_ONLY  a PCM that takes exactly 2 channels (ALSA multi over sink B), like a card
#   HAPTICSYNTH_RIG_RATE     48000
#   HAPTICSYNTH_RIG_OUT_SPLIT_FRONT / _OUT_SPLIT_LFE  a USB 5.1 card split by module-remap-sink:
#                            its front pair and its LFE as two sinks (two devices, one clock);
#   HAPTICSYNTH_RIG_IN_SPLIT the card's monitor, 6 channels (FL FR RL RR FC LFE)
# The *_OUT PCMs are plug -> pulse (any format/rate converts); *_IN record the sink's monitor.
#
# Sinks built the way real systems build them (issue 22): the names, channel maps and
# descriptions PulseAudio gives a PC's built-in card in each of its profiles, and a DualSense's
# 4-channel USB device (PulseAudio and PipeWire present it as "Analog Surround 4.0": FL FR RL RR).
# Through ALSA's pulse plugin a stream's channel map is fixed by its channel count (3 channels are
# FL FR AUX0); the server keeps a channel only where the sink has one of that name. Each has an
# _OUT (plug -> pulse) and an _IN PCM, and its sink name in _SINK_:
#   HAPTICSYNTH_RIG_OUT_STEREO   analog-stereo            FL FR
#   HAPTICSYNTH_RIG_OUT_21       analog-surround-21       FL FR LFE
#   HAPTICSYNTH_RIG_OUT_51       analog-surround-51       FL FR RL RR FC LFE
#   HAPTICSYNTH_RIG_OUT_71       analog-surround-71       FL FR RL RR FC LFE SL SR
#   HAPTICSYNTH_RIG_OUT_40       analog-surround-40       FL FR RL RR
#   HAPTICSYNTH_RIG_OUT_DUALSENSE  usb-Sony_Interactive_Entertainment_Wireless_Controller-00.analog-surround-40
#   HAPTICSYNTH_RIG_DEFAULT      a pulse PCM naming no sink (like a desktop's `default`): the
#                                server's default sink, which tests may switch with pactl
#                                (HAPTICSYNTH_RIG_SERVER is the server address for pactl -s)
#
# Channel maps: PulseAudio matches channels by position name, and ALSA's pulse plugin names
# 1 channel MONO, 2 FL FR, 3 FL FR AUX0, 4 FL FR RL RR, 6 FL FR RL RR FC LFE, 8 + SL SR. A
# stream whose map equals the sink's (and a monitor capture with it) is copied bit for bit.
# Otherwise channels are matched by name, and the server remixes as a stock PulseAudio does
# (daemon.conf defaults: remixing on, LFE neither produced nor consumed): a channel the sink
# lacks is dropped (AUX, LFE) or mixed into the speakers (left/right/centre ones), and rows are
# normalised; the server never refuses a channel count. hs_stereo_only is a device that does.
set -euo pipefail

SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
RATE=48000

log() { printf 'rig: %s\n' "$*" >&2; }

# Starts pulseaudio for rig dir $1 in the background, records its PID, waits until it answers.
start_server() {
    local w=$1 t0 pid
    t0=$(date +%s%N)
    # stdin/stdout/stderr detached so a caller reading our output is not held open by the server.
    # Debug level: a stream's underrun is logged only there, and timing tests read it to tell a
    # server's hiccup from the engine's (RigServerLog).
    HOME=$w/home XDG_CONFIG_HOME=$w/home/.config XDG_RUNTIME_DIR=$w/run \
        setsid pulseaudio -n -F "$w/ci.pa" --daemonize=no --use-pid-file=no --exit-idle-time=-1 \
        --log-level=debug --log-target=file:"$w/pulse.log" </dev/null >/dev/null 2>&1 &
    pid=$!
    disown "$pid" 2>/dev/null || true  # a later SIGKILL is a test's doing, not news for bash
    echo "$pid" >"$w/server.pid"
    for _ in $(seq 500); do
        if pactl -s "unix:$w/native" info >/dev/null 2>&1; then
            # The server's main thread moves the clients' audio to the sinks; at its normal
            # priority a loaded machine starves it for tens of ms (even seconds), the sink
            # underruns in silence (the ALSA pulse plugin reports no xrun) and recordings get
            # gaps the engine never made. The rig is a measuring instrument: its main thread runs
            # at SCHED_RR 4, below the sinks' own threads (RR 5, as PulseAudio sets them).
            chrt -r -p 4 "$pid" >/dev/null 2>&1 || log "could not raise pulseaudio's priority (chrt)"
            log "pulseaudio pid=$pid ready in $((($(date +%s%N) - t0) / 1000000)) ms"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.02
    done
    log "pulseaudio failed to start; its log:"
    cat "$w/pulse.log" >&2 || true
    return 1
}

# True while process $1 exists and is not a zombie.
alive() {
    local state
    state=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ]
}

# Stops the server of rig dir $1 by its PID with signal $2; waits (bounded) until it is gone.
stop_server() {
    local w=$1 sig=${2:-TERM} pid
    [ -f "$w/server.pid" ] || return 0
    pid=$(cat "$w/server.pid")
    rm -f "$w/server.pid"
    [ -n "$pid" ] || return 0
    kill "-$sig" "$pid" 2>/dev/null || return 0
    for _ in $(seq 250); do alive "$pid" || return 0; sleep 0.02; done
    kill -KILL "$pid" 2>/dev/null || true
}

need_rig_dir() {
    if [ -z "${HAPTICSYNTH_RIG_DIR:-}" ] || [ ! -d "$HAPTICSYNTH_RIG_DIR" ]; then
        log "$1: HAPTICSYNTH_RIG_DIR is not set (run this inside scripts/rig.sh)"
        exit 2
    fi
}

case "${1:-}" in
"")
    echo "usage: scripts/rig.sh <command...> | shell | stop-server | start-server | server-pid" >&2
    exit 2
    ;;
stop-server)
    need_rig_dir stop-server
    stop_server "$HAPTICSYNTH_RIG_DIR" KILL
    exit 0
    ;;
start-server)
    need_rig_dir start-server
    if [ -f "$HAPTICSYNTH_RIG_DIR/server.pid" ] && alive "$(cat "$HAPTICSYNTH_RIG_DIR/server.pid")"; then
        log "server already running"
        exit 0
    fi
    start_server "$HAPTICSYNTH_RIG_DIR"
    exit $?
    ;;
server-pid)
    need_rig_dir server-pid
    cat "$HAPTICSYNTH_RIG_DIR/server.pid"
    exit 0
    ;;
esac

"$(dirname "$SELF")/install-deps.sh"

W=$(mktemp -d /tmp/hapticsynth-rig.XXXXXX)
# Sink names as PulseAudio makes them for a PC's built-in card and for a DualSense on USB.
CARD=alsa_output.pci-0000_00_1f.3
DUALSENSE=alsa_output.usb-Sony_Interactive_Entertainment_Wireless_Controller-00.analog-surround-40
# A USB 5.1 card split in two, as sim-rig owners split theirs: its front pair a stereo sink for
# the sound, its LFE a mono sink for the shaker (module-remap-sink, no remixing). Two devices to
# the engine, one card's clock; the card's monitor records both in one stream, to the sample.
SPLIT=alsa_output.usb-C-Media_Electronics_Inc._USB_Audio_Device-00.analog-surround-51
mkdir -p "$W/home/.config/pulse" "$W/run"
chmod 700 "$W/run"

cat >"$W/ci.pa" <<EOF
load-module module-native-protocol-unix auth-anonymous=1 socket=$W/native
load-module module-null-sink norewinds=1 sink_name=hs_sink format=s16le rate=$RATE channels=3 channel_map=front-left,front-right,aux0
load-module module-null-sink norewinds=1 sink_name=hs_sink_b format=s16le rate=$RATE channels=2 channel_map=front-left,front-right
load-module module-null-sink norewinds=1 sink_name=hs_sink_mono format=s16le rate=$RATE channels=1 channel_map=mono
load-module module-null-sink norewinds=1 sink_name=hs_sink_4ch format=s16le rate=$RATE channels=4 channel_map=front-left,front-right,rear-left,rear-right
load-module module-null-sink norewinds=1 sink_name=$CARD.analog-stereo format=s16le rate=$RATE channels=2 channel_map=front-left,front-right sink_properties=device.description="Built-in\\ Audio\\ Analog\\ Stereo"
load-module module-null-sink norewinds=1 sink_name=$CARD.analog-surround-21 format=s16le rate=$RATE channels=3 channel_map=front-left,front-right,lfe sink_properties=device.description="Built-in\\ Audio\\ Analog\\ Surround\\ 2.1"
load-module module-null-sink norewinds=1 sink_name=$CARD.analog-surround-51 format=s16le rate=$RATE channels=6 channel_map=front-left,front-right,rear-left,rear-right,front-center,lfe sink_properties=device.description="Built-in\\ Audio\\ Analog\\ Surround\\ 5.1"
load-module module-null-sink norewinds=1 sink_name=$CARD.analog-surround-71 format=s16le rate=$RATE channels=8 channel_map=front-left,front-right,rear-left,rear-right,front-center,lfe,side-left,side-right sink_properties=device.description="Built-in\\ Audio\\ Analog\\ Surround\\ 7.1"
load-module module-null-sink norewinds=1 sink_name=$CARD.analog-surround-40 format=s16le rate=$RATE channels=4 channel_map=front-left,front-right,rear-left,rear-right sink_properties=device.description="Built-in\\ Audio\\ Analog\\ Surround\\ 4.0"
load-module module-null-sink norewinds=1 sink_name=$DUALSENSE format=s16le rate=$RATE channels=4 channel_map=front-left,front-right,rear-left,rear-right sink_properties=device.description="DualSense\\ Wireless\\ Controller\\ Analog\\ Surround\\ 4.0"
load-module module-null-sink norewinds=1 sink_name=$SPLIT format=s16le rate=$RATE channels=6 channel_map=front-left,front-right,rear-left,rear-right,front-center,lfe sink_properties=device.description="USB\\ Audio\\ Device\\ Analog\\ Surround\\ 5.1"
load-module module-remap-sink sink_name=hs_split_front master=$SPLIT channels=2 master_channel_map=front-left,front-right channel_map=front-left,front-right remix=no sink_properties=device.description="Speakers\\ (USB\\ 5.1\\ front)"
load-module module-remap-sink sink_name=hs_split_lfe master=$SPLIT channels=1 master_channel_map=lfe channel_map=mono remix=no sink_properties=device.description="Shaker\\ (USB\\ 5.1\\ LFE)"
set-default-sink hs_sink
set-default-source hs_sink.monitor
EOF
# Remixing as PulseAudio ships it (enable-remixing yes, remixing-use-all-sink-channels yes,
# remixing-produce-lfe no, remixing-consume-lfe no): what a real desktop does with a stream
# whose channels the sink does not have.
cat >"$W/home/.config/pulse/daemon.conf" <<EOF
default-sample-format = s16le
default-sample-rate = $RATE
alternate-sample-rate = $RATE
avoid-resampling = yes
exit-idle-time = -1
flat-volumes = no
EOF
echo "autospawn = no" >"$W/home/.config/pulse/client.conf"
cat >"$W/asound.conf" <<EOF
# hint sections make the PCMs show up in snd_device_name_hint (hapticsynth devices).
pcm.hs_raw_out { type pulse server "unix:$W/native" device "hs_sink"
                 hint { show on description "rig sink A, raw pulse (3 ch: FL FR AUX0)" } }
pcm.hs_raw_in  { type pulse server "unix:$W/native" device "hs_sink.monitor"
                 hint { show on description "rig sink A monitor, raw pulse" } }
pcm.hs_out     { type plug slave.pcm "hs_raw_out" hint { show on description "rig sink A (3 ch: stereo + haptic)" } }
pcm.hs_in      { type plug slave.pcm "hs_raw_in"  hint { show on description "rig sink A monitor" } }
pcm.hs_out_b   { type plug slave.pcm { type pulse server "unix:$W/native" device "hs_sink_b" }
                 hint { show on description "rig sink B (stereo)" } }
pcm.hs_in_b    { type plug slave.pcm { type pulse server "unix:$W/native" device "hs_sink_b.monitor" } }
pcm.hs_out_mono { type plug slave.pcm { type pulse server "unix:$W/native" device "hs_sink_mono" }
                 hint { show on description "rig mono sink (haptic only)" } }
pcm.hs_in_mono { type plug slave.pcm { type pulse server "unix:$W/native" device "hs_sink_mono.monitor" } }
pcm.hs_out_4ch { type plug slave.pcm { type pulse server "unix:$W/native" device "hs_sink_4ch" }
                 hint { show on description "rig 4-channel sink (FL FR RL RR)" } }
pcm.hs_in_4ch  { type plug slave.pcm { type pulse server "unix:$W/native" device "hs_sink_4ch.monitor" } }
# Exactly 2 channels and no channel conversion, like a real stereo card (multi over sink B).
pcm.hs_stereo_only {
    type multi
    slaves.a { pcm "hs_out_b" channels 2 }
    bindings { 0 { slave a channel 0 } 1 { slave a channel 1 } }
    hint { show on description "rig: a device that takes exactly 2 channels" }
}
pcm.hs_bad_sink { type pulse server "unix:$W/native" device "no_such_sink" }
pcm.hs_out_split_front { type plug slave.pcm { type pulse server "unix:$W/native" device "hs_split_front" }
                 hint { show on description "rig: the split USB 5.1 card's front pair (stereo)" } }
pcm.hs_out_split_lfe { type plug slave.pcm { type pulse server "unix:$W/native" device "hs_split_lfe" }
                 hint { show on description "rig: the split USB 5.1 card's LFE (mono)" } }
pcm.hs_in_split { type plug slave.pcm { type pulse server "unix:$W/native" device "$SPLIT.monitor" } }
EOF
# Issue 22's sinks: an _out and an _in PCM each, as plug -> pulse; and a `default`-like PCM.
for pair in stereo:$CARD.analog-stereo 21:$CARD.analog-surround-21 51:$CARD.analog-surround-51 \
    71:$CARD.analog-surround-71 40:$CARD.analog-surround-40 dualsense:$DUALSENSE; do
    short=${pair%%:*} sink=${pair#*:}
    cat >>"$W/asound.conf" <<EOF
pcm.hs_out_$short { type plug slave.pcm { type pulse server "unix:$W/native" device "$sink" }
                   hint { show on description "rig sink $sink" } }
pcm.hs_in_$short  { type plug slave.pcm { type pulse server "unix:$W/native" device "$sink.monitor" } }
EOF
done
cat >>"$W/asound.conf" <<EOF
pcm.hs_default { type pulse server "unix:$W/native" hint { show on description "rig: the server's default sink" } }
EOF

# Inside another rig (scripts/jack-rig.sh), keep its PCM names and add ours.
export ALSA_CONFIG_PATH=${ALSA_CONFIG_PATH:-/usr/share/alsa/alsa.conf}:$W/asound.conf
export HAPTICSYNTH_RIG_DIR=$W HAPTICSYNTH_RIG_CTL=$SELF HAPTICSYNTH_RIG_RATE=$RATE
export HAPTICSYNTH_RIG_OUT=hs_out HAPTICSYNTH_RIG_IN=hs_in
export HAPTICSYNTH_RIG_OUT_B=hs_out_b HAPTICSYNTH_RIG_IN_B=hs_in_b
export HAPTICSYNTH_RIG_OUT_MONO=hs_out_mono HAPTICSYNTH_RIG_IN_MONO=hs_in_mono
export HAPTICSYNTH_RIG_OUT_4CH=hs_out_4ch HAPTICSYNTH_RIG_IN_4CH=hs_in_4ch
export HAPTICSYNTH_RIG_RAW_OUT=hs_raw_out HAPTICSYNTH_RIG_RAW_IN=hs_raw_in
export HAPTICSYNTH_RIG_OUT_SPLIT_FRONT=hs_out_split_front HAPTICSYNTH_RIG_OUT_SPLIT_LFE=hs_out_split_lfe
export HAPTICSYNTH_RIG_IN_SPLIT=hs_in_split
export HAPTICSYNTH_RIG_BAD_SINK=hs_bad_sink HAPTICSYNTH_RIG_STEREO_ONLY=hs_stereo_only
for short in stereo 21 51 71 40 dualsense; do
    upper=$(echo "$short" | tr a-z A-Z)
    export "HAPTICSYNTH_RIG_OUT_$upper=hs_out_$short" "HAPTICSYNTH_RIG_IN_$upper=hs_in_$short"
done
export HAPTICSYNTH_RIG_SINK_STEREO=$CARD.analog-stereo HAPTICSYNTH_RIG_SINK_21=$CARD.analog-surround-21
export HAPTICSYNTH_RIG_SINK_51=$CARD.analog-surround-51 HAPTICSYNTH_RIG_SINK_71=$CARD.analog-surround-71
export HAPTICSYNTH_RIG_SINK_40=$CARD.analog-surround-40 HAPTICSYNTH_RIG_SINK_DUALSENSE=$DUALSENSE
export HAPTICSYNTH_RIG_DEFAULT=hs_default HAPTICSYNTH_RIG_SERVER=unix:$W/native

cleanup() {
    stop_server "$W" TERM || true
    if [ -n "${HAPTICSYNTH_RIG_KEEP:-}" ]; then log "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_server "$W"
if [ "$1" = shell ]; then set -- "${SHELL:-bash}"; fi
rc=0
"$@" || rc=$?
if [ "$rc" != 0 ]; then
    # What the server said helps explain a failure (a server that died mid-suite, seen once under
    # load, left only "Connection refused" in the tests' output).
    if [ -f "$W/server.pid" ] && alive "$(cat "$W/server.pid")"; then state=running; else state="not running"; fi
    log "the command failed (exit $rc); the server is $state; the end of its log ($W/pulse.log):"
    grep -v '^D: ' "$W/pulse.log" 2>/dev/null | tail -n 40 >&2 || true
fi
exit $rc
