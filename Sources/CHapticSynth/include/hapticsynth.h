/*
 * hapticsynth.h — the C API of libhapticsynth, the audio-haptic synthesizer of hapticsynth.
 *
 * hapticsynth renders haptic patterns (Apple's AHAP JSON) into drive for bass shakers,
 * voice-coil actuators and LRAs, shaped by an actuator profile and a protection chain, and
 * plays them live through ALSA on CLOCK_MONOTONIC, with sound effects in lockstep — or into
 * a buffer your own audio code pulls. This header is the whole C API; nothing of the Swift
 * implementation crosses it. Build with `cc app.c $(pkg-config --cflags --libs hapticsynth)`.
 *
 * Licence: Apache-2.0.
 *
 * ---------------------------------------------------------------------------------------
 * CONVENTIONS
 *
 * Handles. `hs_engine`, `hs_pattern` and `hs_player` are opaque: made by a create/open/load
 * call, ended by the matching close/free call. A handle is a token, not an address: never
 * dereference it. Every call checks the handles it is given: NULL, a handle of another kind,
 * or one already closed or freed gives HS_ERR_INVALID_HANDLE, never a crash. A freed handle
 * stays recognised after its slot is reused by a new handle (each slot counts generations;
 * only two billion reuses of one slot would bring a generation round again).
 *
 * Statuses. Every call returns an `int` status — HS_OK (0) or a negative HS_ERR_* code —
 * unless its comment says otherwise (a few return a value: hs_version, hs_last_error,
 * hs_status_name, hs_monotonic_now, hs_player_is_playing; hs_engine_close, hs_pattern_free
 * and hs_player_free return nothing).
 *
 * Errors. Each call that returns a status also sets this thread's last error message:
 * "" on success, one line naming what and where on failure; hs_last_error() reads it.
 * The string belongs to the library and stays valid until this thread's next hs_ call.
 * Nothing aborts the host process on bad input: NULL pointers, strings that are not UTF-8,
 * hostile numbers (NaN, ±inf, 1e308, -0, negative or huge counts), hostile JSON, closed
 * handles — each is a status and a message.
 *
 * Strings are NUL-terminated UTF-8 unless a length is given. Numbers: a time must be finite;
 * intensities and sharpnesses outside their range are clamped (NaN is refused).
 *
 * Times are seconds on the engine's clock:
 *   - a live engine: CLOCK_MONOTONIC (hs_monotonic_now(), or clock_gettime(CLOCK_MONOTONIC)
 *     in your own code: tv_sec + tv_nsec / 1e9);
 *   - an offline engine: seconds from the first frame pulled with hs_engine_render (0).
 * A time of 0, or one already past, means as soon as possible; a time more than 3600 s
 * ahead of the engine's clock is refused (HS_ERR_INVALID_ARGUMENT).
 *
 * ---------------------------------------------------------------------------------------
 * THREADS
 *
 * Every function may be called from any thread, on the same handles, concurrently.
 *
 * Real-time safe (no allocation, no lock, no waiting, no I/O: callable from an audio
 * callback): hs_engine_render, hs_engine_now, hs_monotonic_now, hs_last_error,
 * hs_status_name, hs_version. One thread at a time may pull from an engine with
 * hs_engine_render (a second one at the same moment gets HS_ERR_BUSY and silence). Before
 * your audio thread runs in real time, make one hs_engine_render call on it (0 frames will
 * do): a thread's first call may allocate its error slot (when the library was loaded with
 * dlopen: Python's ctypes, plugins), and the first calls in a process let the Swift runtime
 * set up what it needs once.
 *
 * Control calls (play, transient, cue, stop, players, status) take short internal locks
 * and allocate; they never wait for the device. Call them from your game or control
 * thread, not from a real-time audio callback. The first play of a pattern on an engine
 * prepares it for that engine (compiles it, reads its sound files): hs_engine_prepare
 * does that ahead of time.
 *
 * May block: hs_engine_open* (opens ALSA devices, starts threads, reads the library
 * folders), hs_engine_close (waits for calls in progress on the engine from other threads,
 * an hs_engine_render included, and for a callback running on another thread),
 * hs_pattern_load_*, hs_engine_prepare, hs_engine_reload_library, hs_pattern_render*.
 *
 * Callbacks (hs_engine_set_callbacks) come on the engine's service thread — a thread of
 * normal priority that the library owns — never on a real-time render thread and never
 * from inside one of your own hs_ calls. They come one at a time per engine. A callback
 * may call any hs_ function, hs_engine_close of its own engine included (no further
 * callback comes after it; the close completes when the callback has returned). Keep them
 * short: reconnection waits for them. An offline engine never calls them (nothing is lost).
 * ---------------------------------------------------------------------------------------
 */
#ifndef HAPTICSYNTH_H
#define HAPTICSYNTH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HS_VERSION_MAJOR 0
#define HS_VERSION_MINOR 1
#define HS_VERSION_PATCH 0

/* Statuses (0 or negative). */
enum {
    HS_OK = 0,
    /** A NULL pointer, a string that is not UTF-8, a number out of its domain. */
    HS_ERR_INVALID_ARGUMENT = -1,
    /** NULL, a handle of another kind, or one already closed or freed. */
    HS_ERR_INVALID_HANDLE = -2,
    /** A pattern, profile or channel layout that cannot be read (the message says where). */
    HS_ERR_PARSE = -3,
    /** A file that cannot be read or written. */
    HS_ERR_IO = -4,
    /** An output device that cannot be opened. */
    HS_ERR_DEVICE = -5,
    /** The engine cannot play now: reconnecting to its device, given up, or closed. */
    HS_ERR_NOT_RUNNING = -6,
    /** Not supported: hs_engine_render on a live engine. */
    HS_ERR_UNSUPPORTED = -7,
    /** A limit: all voices or the command queue in use, too many handles, a buffer too small. */
    HS_ERR_LIMIT = -8,
    /** No library pattern, cue or sound effect of that name. */
    HS_ERR_NOT_FOUND = -9,
    /** Another thread is pulling from this engine at the same moment (hs_engine_render). */
    HS_ERR_BUSY = -10,
    /** A fault inside the library (a bug: please report the message). */
    HS_ERR_INTERNAL = -99
};

/* States (hs_engine_status.state). */
enum {
    /** Playing (or ready to). */
    HS_STATE_RUNNING = 0,
    /** The device was lost; the engine reconnects by itself. Calls return HS_ERR_NOT_RUNNING meanwhile. */
    HS_STATE_RECONNECTING = 1,
    /** Given up for good (no device at open, recovery failed, or closed). */
    HS_STATE_UNAVAILABLE = 2
};

/* Why an engine stopped on its own (the stopped callback). */
enum {
    /** The device or its sound server failed; the engine reconnects by itself. */
    HS_STOP_DEVICE_LOST = 1,
    /** The device made no progress within its bounded wait (a dead JACK server looks like this). */
    HS_STOP_DEVICE_TIMEOUT = 2,
    /** Recovery failed: the engine is unavailable for good. */
    HS_STOP_RECOVERY_FAILED = 3
};

/* Which of an engine's devices a callback is about. */
enum {
    /** The haptic device (`device`; in one stream, the sound effects too). */
    HS_ROLE_HAPTIC = 0,
    /** The sound-effect device of two-device mode (`audio_device`). */
    HS_ROLE_AUDIO = 1
};

/* Dynamic parameters of a player (hs_player_schedule_curve). */
enum {
    /** HapticIntensityControl: scales intensity, 0…1. */
    HS_PARAM_INTENSITY = 0,
    /** HapticSharpnessControl: offsets sharpness, -1…1. */
    HS_PARAM_SHARPNESS = 1
};

/* What an output channel carries (hs_channel_info.source). */
enum {
    HS_SOURCE_SILENCE = 0,
    /** The haptic drive (of the actuator profile hs_channel_info.profile). */
    HS_SOURCE_HAPTIC = 1,
    /** The sound effects' left or right channel. */
    HS_SOURCE_LEFT = 2,
    HS_SOURCE_RIGHT = 3
};

/* Whether the device (or its sound server) keeps a channel (hs_channel_info.fate). */
enum {
    /** It plays on a channel of its own (an offline engine's channels all do: they are yours). */
    HS_CHANNEL_CARRIED = 0,
    /** The server drops it (a sink without that position: AUX0 or LFE on a stereo sink). */
    HS_CHANNEL_DROPPED = 1,
    /** The server mixes it into the speakers instead of a channel of its own. */
    HS_CHANNEL_MIXED = 2,
    /** The device cannot say where it goes. */
    HS_CHANNEL_UNKNOWN = 3
};

/* Log levels (hs_set_log_callback). */
enum {
    HS_LOG_DEBUG = 0,
    HS_LOG_INFO = 1,
    /** Something the app should hear about: a haptic channel the device drops, a layout that gives up the sound. */
    HS_LOG_WARNING = 2,
    HS_LOG_ERROR = 3
};

typedef struct hs_engine hs_engine;
typedef struct hs_pattern hs_pattern;
typedef struct hs_player hs_player;

/* =======================================================================================
 * Library, errors, clock
 * ======================================================================================= */

/** The library's version, "MAJOR.MINOR.PATCH" (static storage). Real-time safe. */
const char *hs_version(void);

/** This thread's last error message: "" after a call that succeeded. Valid until this
 *  thread's next hs_ call. Real-time safe. */
const char *hs_last_error(void);

/** The name of a status ("HS_ERR_PARSE"; "HS_UNKNOWN_STATUS" for others; static storage). */
const char *hs_status_name(int status);

/** Seconds on CLOCK_MONOTONIC: the clock of live engines. Real-time safe. */
double hs_monotonic_now(void);

/** Sends the library's log lines at `min_level` (HS_LOG_*) and above to `callback(user, level,
 *  message)`, process-wide; NULL: none (the default; the environment variable HAPTICSYNTH_LOG
 *  = debug, info, warning... still writes them to standard error). Set it before
 *  hs_engine_open to hear what an open says: the layout chosen from the device, a haptic
 *  channel the device or its sound server drops (HS_LOG_WARNING, the lines the CLI prints).
 *  A line comes on the thread that logs it — the caller's during an hs_ call, an engine's
 *  service thread — never on a real-time render thread; `message` is valid during the call
 *  only. The callback must not call hs_set_log_callback. */
int hs_set_log_callback(void (*callback)(void *user, int level, const char *message), void *user, int min_level);

/** The ALSA playback devices, as `hapticsynth devices` lists them (each probed briefly: may
 *  block for a moment), as a JSON array of objects (`default` always among them): "name" (a
 *  PCM name for hs_engine_open), "description" (string or null), "opens_now" (bool), "error"
 *  (why it cannot open, or null), "channels" and "rates" ([lowest, highest], or null).
 *  ALSA's plugins (JACK's above all) may print their own complaints on standard error while
 *  probing. Written into `buffer` as hs_pattern_to_json writes (`buffer` NULL: only
 *  `*length`; HS_ERR_LIMIT when `capacity` is too small — the listing may change between two
 *  calls). */
int hs_devices_json(char *buffer, size_t capacity, size_t *length);

/* =======================================================================================
 * Engines
 * ======================================================================================= */

/** How an engine is made (hs_engine_open_with). Fill it with hs_engine_options_init first,
 *  then set what you need: fields added in later versions keep their defaults. */
typedef struct hs_engine_options {
    /** sizeof(hs_engine_options), set by hs_engine_options_init. */
    size_t struct_size;
    /** The ALSA PCM of the haptic output ("default", "hw:1,0", a PulseAudio or JACK PCM...).
     *  NULL: "default". Ignored by offline engines. */
    const char *device;
    /** Two-device mode: the ALSA PCM that plays the sound effects (speakers) while `device`
     *  drives the actuator; each is placed on its own device's clock. NULL: one stream. */
    const char *audio_device;
    /** The channel map of the haptic output, as `hapticsynth --layout` reads it: by column,
     *  one entry per channel: H (haptic drive), L, R (sound effects, left and right), 0
     *  (silence), each optionally :PROFILE (a built-in name or a JSON path) and *GAIN (0.5,
     *  -6dB); by position (FL,FR,LFE=H; H@LFE), placed on the device's channel map; presets
     *  "mono" (= H), "stereo+haptic" (= L,R,H), "2.1", "dualsense", "dualsense+sound".
     *  Examples: "L,R,H", "0,0,H,H*0.5", "FL=H:bass-shaker,FR=H:voice-coil*0.5".
     *  NULL: chosen from the device (see hs_engine_open) in one stream, "H" in two-device mode,
     *  "H" offline. An offline engine has no device: a map's entries are its channels in
     *  their order, positions naming them (as `hapticsynth render` writes them). */
    const char *layout;
    /** The actuator profile: a built-in name ("bass-shaker", "voice-coil", "lra"), the
     *  path of a profile JSON file, or the name of one in the assets folder's actuators/
     *  (NAME.json), as `hapticsynth --profile` takes it. NULL: "bass-shaker". */
    const char *profile;
    /** Frames per second, 8000–384000. 0: 48000. */
    int sample_rate;
    /** Frames per period (live: the device's period; offline: the largest block rendered at
     *  once — any value renders the same samples), 16–16384. 0: 256 live, 1024 offline. */
    int period_frames;
    /** Periods in the device's buffer, 2–16. 0: 3. */
    int buffer_periods;
    /** A folder of patterns played by name (hs_engine_play_named, hs_player_create_named, the
     *  cue sheet): *.ahap files, and *.haptic clips read as the AHAP they convert to (name.ahap
     *  wins over name.haptic). NULL: the one `hapticsynth info --paths` finds (the user's
     *  ~/.local/share/hapticsynth/Haptics first, then ./Haptics, the XDG data folders, the
     *  library's install prefix), or none. */
    const char *haptics_folder;
    /** A folder with sfx/ *.wav sound effects and cues.json, the cue sheet (hs_engine_play_cue,
     *  hs_engine_play_sound); also searched for the sounds of AudioCustom events. NULL: the
     *  one `hapticsynth info --paths` finds, as for haptics_folder, or none. */
    const char *assets_folder;
    /** SCHED_FIFO priority of the live render thread, 1–99; 0: 70; -1: normal scheduling.
     *  Refused by the system: normal scheduling (hs_engine_status says which). */
    int realtime_priority;
    /** 1: lock the process's memory (mlockall) when the engine starts — process-wide and never
     *  undone; 0 (default): do not. */
    int lock_memory;
    /** 1: an offline engine the caller pulls (hs_engine_render); `device`, `audio_device`,
     *  `realtime_priority` and `lock_memory` are ignored. 0 (default): live. */
    int offline;
} hs_engine_options;

/** Fills `options` with the defaults (and its struct_size). */
int hs_engine_options_init(hs_engine_options *options);

/** A live engine on the ALSA device `device` (NULL: "default") with the default layout,
 *  actuator profile `profile` (NULL: bass-shaker; a name or a JSON path) and `period_frames`
 *  frames per period (0: 256). HS_ERR_DEVICE when the device cannot be opened (the message is
 *  ALSA's). The default layout is chosen from the device's channel map as `hapticsynth play`
 *  chooses it: the sound on the fronts and the haptic on LFE where there is one (2.1, 5.1,
 *  7.1), on AUX0 of a pro-audio sink, on FR of a stereo device (its left channel the sound's
 *  left), L,R,H by column when the device says nothing. What the choice gives up, and a haptic
 *  channel the device drops, are logged (hs_set_log_callback) and reported per channel
 *  (hs_engine_channel_info, hs_engine_status.haptic_carried). */
int hs_engine_open(hs_engine **out, const char *device, const char *profile, int period_frames);

/** An engine made as `options` says (live on one or two devices, or offline). */
int hs_engine_open_with(hs_engine **out, const hs_engine_options *options);

/** An offline engine: nothing plays by itself; hs_engine_render pulls its next frames into
 *  your buffer. Its clock is the frames pulled: time 0 is the first frame pulled, so a pattern
 *  played at time T is heard from pulled frame round(T × sample_rate); a pattern played before
 *  the first pull (at time 0) renders exactly — bit for bit — what `hapticsynth render`
 *  writes for it with the same layout, profile and rate. `layout` takes every form `render
 *  --layout` takes (see hs_engine_options.layout: by position, per-actuator profiles,
 *  presets); its entries are the channels in their order. `channels` must match the layout
 *  (`layout` NULL: "H" for 1 channel, "L,R,H" for 3; give a layout for other counts). */
int hs_engine_open_offline(hs_engine **out, double sample_rate, int channels, const char *layout, const char *profile);

/** Offline engines: renders the next `frames` frames into `interleaved` (frames × channels
 *  floats, channel order of the layout) and moves the engine's clock on by them. Real-time
 *  safe. HS_ERR_BUSY (and silence) when another thread pulls this engine at the same moment;
 *  HS_ERR_UNSUPPORTED on a live engine; HS_ERR_INVALID_ARGUMENT for NULL or frames < 0
 *  (0 frames: HS_OK, nothing written). */
int hs_engine_render(hs_engine *engine, float *interleaved, int frames);

/** Stops everything (a short fade on live devices), closes the devices and ends the handle.
 *  Waits for calls in progress on the engine from other threads and for a callback running
 *  on another thread. Its players stay handles until freed (their calls then give
 *  HS_ERR_NOT_RUNNING). NULL or a closed handle: nothing happens (hs_last_error says so). */
void hs_engine_close(hs_engine *engine);

/** The engine's clock now (seconds; see "Times" above). Real-time safe. */
int hs_engine_now(hs_engine *engine, double *now);

/** What an engine reports (hs_engine_get_status). Set struct_size = sizeof(hs_engine_status)
 *  before the call; fields added in later versions are then left alone by older callers. */
typedef struct hs_engine_status {
    size_t struct_size;
    /** HS_STATE_RUNNING, HS_STATE_RECONNECTING or HS_STATE_UNAVAILABLE. */
    int state;
    /** 1 for an offline engine. */
    int offline;
    int sample_rate;
    /** Channels per frame of the haptic output (the layout's). */
    int channels;
    int period_frames;
    /** 1 when the live render thread got SCHED_FIFO. */
    int realtime;
    /** Number of the engine in use: 1 for the first; each rebuild after a failed recovery (a
     *  reset callback) makes a new one. */
    int engine_generation;
    /** Two-device mode: the audio device's state (HS_STATE_*); -1 in one stream. */
    int audio_state;
    /** The engine's clock now (seconds). */
    double now;
    /** Seconds from an immediate call to its first sample at the output. */
    double output_latency;
    /** Frames rendered so far (offline: pulled). */
    int64_t frames_rendered;
    /** Voices playing or waiting for their start. */
    int64_t active_voices;
    /** Underruns recovered; stalls ridden out; reconnections to the device. */
    int64_t xruns;
    int64_t stalls;
    int64_t reconnections;
    /** Scheduled starts dropped because their time passed while the device was away. */
    int64_t dropped_onsets;
    /** Scheduled commands that came after their frame had been rendered (played at once). */
    int64_t late_commands;
    /** Voices started; starts the engine refused; names that named nothing; calls made while
     *  the engine could not play; transients cut short to keep at most 4 sounding. */
    int64_t voices_started;
    int64_t starts_failed;
    int64_t unknown_names;
    int64_t calls_while_unavailable;
    int64_t transients_cut;
    /** Whether the haptic reaches the actuator: 1 when every haptic channel is carried on a
     *  channel of its own (offline: always), 0 when the device or its server drops one or mixes
     *  it into the speakers (a warning was logged), -1 when the device cannot say. Per channel:
     *  hs_engine_channel_info. */
    int haptic_carried;
} hs_engine_status;

/** Fills `status` (as far as its struct_size reaches). */
int hs_engine_get_status(hs_engine *engine, hs_engine_status *status);

/** One output channel of an engine (hs_engine_channel_info). Set struct_size =
 *  sizeof(hs_channel_info) before the call. */
typedef struct hs_channel_info {
    size_t struct_size;
    /** What it carries: HS_SOURCE_*. */
    int source;
    /** Its gain (the layout's *GAIN; 1 when none; 0 for silence). */
    float gain;
    /** The position the device gives it ("FL", "LFE", "AUX0"...; "" when it does not say, and
     *  offline). */
    char position[16];
    /** A haptic channel's actuator profile ("bass-shaker", a JSON profile's name; cut at 63
     *  bytes); "" for the others. */
    char profile[64];
    /** Whether the device or its sound server keeps it: HS_CHANNEL_*. */
    int fate;
    /** Why, when not HS_CHANNEL_CARRIED (one line; cut at 255 bytes); "" otherwise. */
    char reason[256];
} hs_channel_info;

/** Fills `info` (as far as its struct_size reaches) for output channel `index` (0 …
 *  hs_engine_status.channels - 1) of the engine's haptic output, as its device was last
 *  opened. HS_ERR_INVALID_ARGUMENT for an index out of range; HS_ERR_NOT_RUNNING while the
 *  device is away. */
int hs_engine_channel_info(hs_engine *engine, int index, hs_channel_info *info);

/** Callbacks of an engine (see THREADS above). Any pointer may be NULL. */
typedef struct hs_callbacks {
    /** sizeof(hs_callbacks). */
    size_t struct_size;
    /** The device `role` (HS_ROLE_*) stopped on its own: `reason` HS_STOP_DEVICE_LOST or
     *  HS_STOP_DEVICE_TIMEOUT (the engine reconnects by itself; calls give HS_ERR_NOT_RUNNING
     *  meanwhile), or HS_STOP_RECOVERY_FAILED (unavailable for good). `message` is valid
     *  during the call only. Never called for hs_engine_close. */
    void (*stopped)(void *user, int role, int reason, const char *message);
    /** The device `role` is back: the same players, loops and schedule go on. `outage_seconds`
     *  from the loss to sound again; `gap_seconds` of the timeline that passed without output;
     *  `dropped_onsets` scheduled starts that fell due meanwhile and were dropped. */
    void (*reconnected)(void *user, int role, double outage_seconds, double gap_seconds, int dropped_onsets);
    /** The engine of `role` could not be reconnected and was rebuilt (`engine_generation` is the
     *  new one's number): one-shot voices of the old one are gone; loops (hs_player) restarted. */
    void (*reset)(void *user, int role, int engine_generation);
    /** Passed to every callback as is. */
    void *user;
} hs_callbacks;

/** Sets the engine's callbacks (NULL: none). Replaces the previous ones; when it returns, the
 *  previous ones are no longer called (unless called from inside one of them). */
int hs_engine_set_callbacks(hs_engine *engine, const hs_callbacks *callbacks);

/** Reads the haptics folder and the cue sheet again (the stream plays on); sound effects are
 *  not re-read. A cue sheet that no longer reads keeps the previous one (HS_ERR_PARSE). */
int hs_engine_reload_library(hs_engine *engine);

/* =======================================================================================
 * Patterns
 * ======================================================================================= */

/** Loads a pattern file. AHAP (.ahap, JSON) is read leniently, as Core Haptics reads it
 *  (hs_pattern_warning_count says what was fixed); sounds of AudioCustom events are looked
 *  for next to the file, then in the engine's assets folder. Meta/Lofelt .haptic files (by
 *  their name or their content) are read as the AHAP pattern they convert to, as the CLI's
 *  render and play read them. Files over 64 MiB are refused. A sound file (WAV, MP3...: by
 *  its first bytes) is refused with HS_ERR_PARSE and a message saying so (`hapticsynth convert`
 *  makes a pattern of it). */
int hs_pattern_load_file(hs_pattern **out, const char *path);

/** Loads a pattern from `length` bytes of JSON in memory (AHAP, or .haptic: see above);
 *  need not be NUL-terminated. Sounds are looked for in the engine's assets folder. */
int hs_pattern_load_json(hs_pattern **out, const char *json, size_t length);

/** How hs_pattern_from_sound_file converts a sound (hs_convert_options_init first): the options
 *  of `hapticsynth convert`, in its units and with its defaults. */
typedef struct hs_convert_options {
    size_t struct_size;
    /** How readily hits become transients, 0–100 (%; 0: none). Default 50. */
    double sensitivity;
    /** The shortest time between two transients, 10–10000 ms. Default 50. */
    double min_gap_ms;
    /** How much the continuous layer's amplitude gives way under a transient, 0–100 (%).
     *  Default 50. */
    double ducking;
    /** At most this many curve points per second, per curve, 2–1000. Default 40. */
    double breakpoints_per_second;
    /** Gain applied to the sound before the analysis, -60–60 dB. Default 0. */
    double gain_db;
    /** Non-zero: the sound's peak is normalised to normalize_dbfs (-60–0) first, instead of a
     *  gain (gain_db must then be 0). Default 0. */
    int normalize;
    double normalize_dbfs;
    /** The channel to analyse, 1, 2, ...; 0 (default): the mean of all channels. */
    int channel;
    /** The part of the sound to convert, seconds from its start: from from_seconds (0–86400;
     *  default 0, where the pattern starts) to to_seconds (0, the default: the sound's end). */
    double from_seconds;
    double to_seconds;
    /** The noise gate, -120–0 dBFS (after the gain): quieter sound counts as silence, with no
     *  haptics (`convert --gate`). Default -60. */
    double gate_dbfs;
} hs_convert_options;

/** Fills `options` with the defaults (and its struct_size). */
int hs_convert_options_init(hs_convert_options *options);

/** Turns the sound file `path` (any format libsndfile reads: WAV, FLAC, AIFF, Ogg, MP3 where
 *  libsndfile has it) into a pattern, as `hapticsynth convert` does with the same options:
 *  continuous events shaped by the sound's loudness and spectrum, and a transient at each hit.
 *  The sound is read a block at a time, up to an hour of it; a conversion takes about a
 *  thousandth of the sound's length, so make it off the audio thread. `options` NULL: the
 *  defaults. HS_ERR_IO when the file cannot be opened or read as a sound; HS_ERR_UNSUPPORTED
 *  for a sound the conversion does not take (its sample rate, no frames, longer than an hour,
 *  a channel or a part it does not have). */
int hs_pattern_from_sound_file(hs_pattern **out, const char *path, const hs_convert_options *options);

/* Text formats of a pattern (hs_pattern_to_json). */
enum {
    /** Apple's AHAP JSON, canonical: the text `hapticsynth convert` writes for a .ahap. */
    HS_FORMAT_AHAP = 0,
    /** Meta/Lofelt .haptic JSON, as `hapticsynth convert -o x.haptic` converts a pattern. */
    HS_FORMAT_HAPTIC = 1
};

/** The pattern as JSON text in `format` (HS_FORMAT_*), written into `buffer` with its NUL
 *  (`capacity` bytes); `*length` receives the text's length in bytes (without the NUL).
 *  `buffer` NULL: only `*length` (ask, allocate length + 1, call again). When `capacity` is not
 *  more than the length: HS_ERR_LIMIT, nothing written, `*length` given. */
int hs_pattern_to_json(const hs_pattern *pattern, int format, char *buffer, size_t capacity, size_t *length);

/** Frees a pattern (players made from it keep what they need). NULL: nothing. */
void hs_pattern_free(hs_pattern *pattern);

/** The pattern's duration in seconds (its last event's end). */
int hs_pattern_duration(const hs_pattern *pattern, double *seconds);

/** Events in the pattern. */
int hs_pattern_event_count(const hs_pattern *pattern, int *count);

/** Warnings the lenient reader left (unknown keys, clamped values...). */
int hs_pattern_warning_count(const hs_pattern *pattern, int *count);

/** Warning `index` (0-based), as one line ("Pattern[3].Event: ..."); valid while the pattern lives. */
int hs_pattern_warning(const hs_pattern *pattern, int index, const char **text);

/* =======================================================================================
 * Playing
 * ======================================================================================= */

/** Prepares `pattern` for `engine` (compiles it for the engine's profile and rate, reads its
 *  sound files) so that the first hs_engine_play of it does no such work. */
int hs_engine_prepare(hs_engine *engine, const hs_pattern *pattern);

/** Plays `pattern` once at `time` on the engine's haptic output (its audio events are heard
 *  when the layout has L or R). HS_ERR_NOT_RUNNING while reconnecting; HS_ERR_LIMIT when all
 *  voices are in use or the command queue is full. */
int hs_engine_play(hs_engine *engine, const hs_pattern *pattern, double time);

/** Plays the library pattern `name` (a file `name`.ahap, or `name`.haptic, of the haptics
 *  folder) at `time`. */
int hs_engine_play_named(hs_engine *engine, const char *name, double time);

/** Fires the cue `name` of the cue sheet at `time`: its sound and haptic, felt together
 *  (the cue sheet's alignment; in two-device mode each on its device's clock). */
int hs_engine_play_cue(hs_engine *engine, const char *name, double time);

/** Plays the sound effect `name` (assets sfx/`name`.wav) at `time`, on the same output frames
 *  as a haptic given the same time (in one stream). */
int hs_engine_play_sound(hs_engine *engine, const char *name, double time);

/** One transient at `time`: intensity and sharpness 0…1 (clamped; quantised to steps of
 *  0.05). At most 4 transients sound at once: a fifth cuts the oldest short. */
int hs_engine_transient(hs_engine *engine, float intensity, float sharpness, double time);

/** Stops, at `time`, everything this engine handle started and that still plays or waits for
 *  its start — patterns, cues, sound effects, transients and players (a short fade) — and
 *  keeps the engine running. Players stopped so can be started again. */
int hs_engine_stop(hs_engine *engine, double time);

/* =======================================================================================
 * Players: a pattern looping, with live intensity and sharpness controls
 * ======================================================================================= */

/** A looping player of `pattern` on `engine` (not started). */
int hs_player_create(hs_player **out, hs_engine *engine, const hs_pattern *pattern);

/** A looping player of the library pattern `name`. */
int hs_player_create_named(hs_player **out, hs_engine *engine, const char *name);

/** Starts looping from the pattern's beginning at `time`, with the player's intensity and
 *  sharpness controls (a player already looping restarts). If the engine is rebuilt (a reset
 *  callback), the loop starts again on the new engine by itself. */
int hs_player_start(hs_player *player, double time);

/** Stops the loop at `time` (a short fade). */
int hs_player_stop(hs_player *player, double time);

/** Sets the intensity control (HapticIntensityControl, 0…1), at once; kept for the next start. */
int hs_player_set_intensity(hs_player *player, float intensity);

/** Sets the sharpness control (HapticSharpnessControl, -1…1), at once; kept for the next start. */
int hs_player_set_sharpness(hs_player *player, float sharpness);

/** Sends a parameter curve (HS_PARAM_INTENSITY or HS_PARAM_SHARPNESS) to the playing loop,
 *  from `time`: `count` points (1–256), `times[i]` seconds after `time` (finite, 0–3600),
 *  `values[i]` (clamped to the parameter's range). The value jumps to the first point and
 *  moves linearly between points. The controls a restart uses stay the last set ones. */
int hs_player_schedule_curve(hs_player *player, int parameter, const double *times, const float *values, int count,
                             double time);

/** 1 while the player loops, 0 when not; a negative status for a bad handle. */
int hs_player_is_playing(const hs_player *player);

/** Stops the player (at once, a short fade) and frees it. NULL: nothing. */
void hs_player_free(hs_player *player);

/* =======================================================================================
 * Offline rendering of a pattern (no engine)
 * ======================================================================================= */

/** How hs_pattern_render and hs_pattern_render_file render (hs_render_options_init first). */
typedef struct hs_render_options {
    size_t struct_size;
    /** Frames per second, 8000–384000. 0: 48000. */
    int sample_rate;
    /** Channel map (as hs_engine_options.layout). NULL: "H", or "L,R,H" when the pattern has
     *  audio events. */
    const char *layout;
    /** Actuator profile, as hs_engine_options.profile. NULL: "bass-shaker". */
    const char *profile;
    /** Seconds of output after the pattern's end, 0–3600. */
    double tail_seconds;
    /** 0 (default): past the end, render on until the output is silent (below -90 dBFS; at
     *  most 30 s more); 1: exactly the duration plus the tail, the last 5 ms faded. */
    int exact_length;
    /** Files: 16 or 24 (integer PCM) or 32 (float). 0: 16. */
    int bits;
    /** Searched for the sounds of AudioCustom events after the pattern's own folder, and for
     *  profiles by name. NULL: the one `hapticsynth render` uses (hs_engine_options.assets_folder). */
    const char *assets_folder;
} hs_render_options;

/** Fills `options` with the defaults (and its struct_size). */
int hs_render_options_init(hs_render_options *options);

/** Renders `pattern` from its start into `out` (interleaved floats), as `hapticsynth render`
 *  does with the same options. `*frames` receives the length in frames and `*channels` (may be
 *  NULL) the channels per frame. With `out` NULL, only the length is computed. When
 *  `capacity_frames` is too small, its first `capacity_frames` frames are written and
 *  HS_ERR_LIMIT is returned with the whole length in `*frames`. `options` NULL: the defaults.
 *  A pattern lasting more than 3600 s (with the tail) is refused (HS_ERR_LIMIT). */
int hs_pattern_render(const hs_pattern *pattern, const hs_render_options *options, float *out, size_t capacity_frames,
                      size_t *frames, int *channels);

/** Renders `pattern` to the sound file `path` (format from its extension: .wav, .flac, .aiff,
 *  .ogg...; "-" is standard output). Written to a temporary file and renamed when complete;
 *  never written over the pattern's own file or its sounds, a symbolic link, or anything that
 *  is not a regular file. */
int hs_pattern_render_file(const hs_pattern *pattern, const hs_render_options *options, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* HAPTICSYNTH_H */
