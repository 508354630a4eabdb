#!/usr/bin/env python3
"""Generate the bundled AHAP pattern library in Haptics/.

Reproducible: Python 3 standard library only, no clock, no randomness; running it
twice writes byte-identical files. Usage (from anywhere):

    python3 scripts/make-haptics.py            # (re)write Haptics/*.ahap
    python3 scripts/make-haptics.py --check    # exit 1 if any committed file differs

The earthquake, answer and score patterns carry exactly the numbers of the app
design (issue 5). Core Haptics applies a pattern's ParameterCurves to every event
in it, transients included; where that bends a design, the file's
Metadata.Description says so, with the resulting values computed below
(linear interpolation between control points, a control holds its last point's
value after the curve ends and is at its neutral value before the curve starts,
HapticIntensityControl multiplies, HapticSharpnessControl adds, results clamped
to 0...1).
"""

import json
import os
import sys

PROJECT = "hapticsynth"
CREATED = "21 November 2025"  # fixed, so output never depends on the clock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "Haptics")


# ---------------------------------------------------------------- builders

def params(intensity, sharpness, **extra):
    """EventParameters: explicit intensity and sharpness always, then extras in a fixed order."""
    out = [
        {"ParameterID": "HapticIntensity", "ParameterValue": float(intensity)},
        {"ParameterID": "HapticSharpness", "ParameterValue": float(sharpness)},
    ]
    for key in ("AttackTime", "DecayTime", "ReleaseTime", "Sustained"):
        if key in extra:
            out.append({"ParameterID": key, "ParameterValue": float(extra.pop(key))})
    assert not extra, extra
    return out


def transient(time, intensity, sharpness):
    return {"Event": {
        "Time": float(time),
        "EventType": "HapticTransient",
        "EventParameters": params(intensity, sharpness),
    }}


def continuous(time, duration, intensity, sharpness, **extra):
    assert duration > 0
    return {"Event": {
        "Time": float(time),
        "EventType": "HapticContinuous",
        "EventDuration": float(duration),
        "EventParameters": params(intensity, sharpness, **extra),
    }}


def curve(parameter_id, time, points):
    """points: [(time relative to the curve's Time, value)]."""
    return {"ParameterCurve": {
        "ParameterID": parameter_id,
        "Time": float(time),
        "ParameterCurveControlPoints": [
            {"Time": float(t), "ParameterValue": float(v)} for t, v in points
        ],
    }}


def parameter(parameter_id, time, value):
    return {"Parameter": {
        "ParameterID": parameter_id,
        "Time": float(time),
        "ParameterValue": float(value),
    }}


def document(description, pattern):
    return {
        "Version": 1.0,
        "Metadata": {"Project": PROJECT, "Created": CREATED, "Description": description},
        "Pattern": pattern,
    }


# ------------------------------------------- what a curve does to an event

def control_at(curve_element, t, neutral):
    """Value of a ParameterCurve's control at absolute time t."""
    c = curve_element["ParameterCurve"]
    start = c["Time"]
    pts = [(start + p["Time"], p["ParameterValue"]) for p in c["ParameterCurveControlPoints"]]
    if t < pts[0][0]:
        return neutral
    for (t0, v0), (t1, v1) in zip(pts, pts[1:]):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    return pts[-1][1]


def clamp01(x):
    return min(1.0, max(0.0, x))


def fmt(x):
    """Short, stable decimal for descriptions."""
    s = "%.3f" % (round(x, 3) + 0.0)
    s = s.rstrip("0")
    return s + "0" if s.endswith(".") else s


def effective_transients(events, intensity_curve=None, sharpness_curve=None):
    """Sentence fragments 't s: (i, s) -> (i', s')' for every transient."""
    parts = []
    for e in events:
        ev = e["Event"]
        if ev["EventType"] != "HapticTransient":
            continue
        t = ev["Time"]
        i = ev["EventParameters"][0]["ParameterValue"]
        s = ev["EventParameters"][1]["ParameterValue"]
        ic = control_at(intensity_curve, t, 1.0) if intensity_curve else 1.0
        sc = control_at(sharpness_curve, t, 0.0) if sharpness_curve else 0.0
        ie, se = clamp01(i * ic), clamp01(s + sc)
        parts.append("%s s (%s, %s) plays as (%s, %s)" % (fmt(t), fmt(i), fmt(s), fmt(ie), fmt(se)))
    return "; ".join(parts)


# ------------------------------------------------------------------ patterns

def heartbeat():
    loop = 0.9
    pattern = [
        # lub: strong, low thump with a short dull body
        transient(0.0, 1.0, 0.15),
        continuous(0.0, 0.1, 0.6, 0.05, AttackTime=0.0, DecayTime=0.08, Sustained=0.0),
        # dub: weaker, 0.16 s later
        transient(0.16, 0.65, 0.1),
        continuous(0.16, 0.08, 0.4, 0.05, AttackTime=0.0, DecayTime=0.06, Sustained=0.0),
        # rest: a neutral control value at the loop end fixes the pattern's length
        parameter("HapticSharpnessControl", loop, 0.0),
    ]
    description = (
        "Heartbeat, lub-dub then rest, one beat per %s s (about 67 BPM) so it loops "
        "seamlessly. Lub at 0 s: transient (1.0, 0.15) plus a 0.1 s non-sustained body "
        "(0.6, 0.05, decay 0.08 s). Dub at 0.16 s: transient (0.65, 0.1) plus a 0.08 s "
        "body (0.4, 0.05, decay 0.06 s). The rest up to %s s is silence; its length is "
        "fixed by a HapticSharpnessControl Parameter of 0 (the neutral value, so it "
        "changes nothing) at %s s. The file has no HapticIntensityControl curve or "
        "parameter, so an app may drive HapticIntensityControl live on a looping "
        "player (progressive-resistance slider) without the pattern overriding it. "
        "Used on every beat of the rhythm chapter (cue beat_hit) and in the finale."
        % (fmt(loop), fmt(loop), fmt(loop))
    )
    return document(description, pattern)


def capacitor_charge():
    charge = 2.0
    intensity = curve("HapticIntensityControl", 0.0,
                      [(0.0, 0.1), (0.5, 0.25), (1.0, 0.45), (1.5, 0.7), (2.0, 1.0)])
    sharpness = curve("HapticSharpnessControl", 0.0,
                      [(0.0, -0.4), (1.0, -0.1), (2.0, 0.3)])
    pattern = [
        continuous(0.0, charge, 1.0, 0.5, AttackTime=0.1, ReleaseTime=0.0),
        intensity,
        sharpness,
        transient(charge, 1.0, 1.0),
    ]
    description = (
        "Capacitor charge over a long press: one continuous event 0-2 s (1.0, 0.5) shaped "
        "by an accelerating HapticIntensityControl curve (0.1 at 0 s, 0.25, 0.45, 0.7, "
        "1.0 at 2 s) and a HapticSharpnessControl curve (-0.4, -0.1 at 1 s, +0.3 at 2 s), "
        "so the charge rises from (0.1, 0.1) to (1.0, 0.8); it ends in a snap transient "
        "at 2 s (1.0, 1.0). The curves apply to the snap too: intensity control is 1.0 "
        "there (no change) and sharpness control +0.3, which clamps at 1.0 (no change). "
        "Stop the player when the press is released early. Cue: capacitor_snap."
    )
    return document(description, pattern)


def thud():
    pattern = [
        transient(0.0, 1.0, 0.1),
        continuous(0.0, 0.25, 0.8, 0.05, AttackTime=0.0, DecayTime=0.2, Sustained=0.0),
    ]
    description = (
        "Thud: a heavy, dull impact. Transient at 0 s (1.0, 0.1) with a short "
        "non-sustained continuous body 0-0.25 s (0.8, 0.05) that decays over 0.2 s. "
        "Cue: segment_lock."
    )
    return document(description, pattern)


def earthquake_splash():
    events = [
        continuous(0.0, 0.8, 0.3, 0.15),           # P-wave rumble
        continuous(0.8, 1.0, 0.9, 0.6),            # S-wave
        transient(0.9, 1.0, 0.8),                  # jolts
        transient(1.2, 0.9, 0.7),
        transient(1.5, 0.7, 0.5),
        continuous(1.8, 0.4, 0.4, 0.2),            # decay
    ]
    ic = curve("HapticIntensityControl", 0.0,
               [(0.0, 0.4), (0.4, 0.6), (0.8, 1.0), (1.3, 1.0), (1.8, 0.5), (2.2, 0.0)])
    sc = curve("HapticSharpnessControl", 0.0,
               [(0.0, 0.2), (0.8, 0.8), (1.3, 0.7), (2.2, 0.0)])
    # When the S-wave's sharpness (0.6 + control) stops clamping at 1.0 (control falls through 0.4).
    s_clamp_end = 1.3 + (0.7 - 0.4) / 0.7 * 0.9
    assert abs(control_at(sc, s_clamp_end, 0.0) - 0.4) < 1e-9
    description = (
        "Earthquake splash (2.2 s), numbers exactly as designed: P-wave continuous "
        "0-0.8 s (0.3, 0.15), S-wave continuous 0.8-1.8 s (0.9, 0.6) with jolt "
        "transients at 0.9, 1.2 and 1.5 s, decay continuous 1.8-2.2 s (0.4, 0.2), "
        "HapticIntensityControl curve 0->0.4, 0.4->0.6, 0.8->1.0, 1.3->1.0, 1.8->0.5, "
        "2.2->0.0 and HapticSharpnessControl curve 0->0.2, 0.8->0.8, 1.3->0.7, 2.2->0.0. "
        "How Core Haptics bends this design: both curves apply to every event, "
        "transients included. The intensity control multiplies (P-wave starts at "
        "0.3 x 0.4 = 0.12; the decay fades from 0.4 x 0.5 = 0.2 to 0). The sharpness "
        "curve is a HapticSharpnessControl, which ADDS to event sharpness rather than "
        "setting it, so the P-wave's sharpness runs 0.35-0.95, the S-wave's (0.6 plus "
        "0.8 falling to %s) is clamped to 1.0 until about %.2f s and ends at %s, and the "
        "decay's runs %s-0.2. Jolts: " % (
            fmt(control_at(sc, 1.8, 0.0)), s_clamp_end, fmt(0.6 + control_at(sc, 1.8, 0.0)),
            fmt(0.2 + control_at(sc, 1.8, 0.0)))
        + effective_transients(events, ic, sc) +
        " (linear interpolation between control points). Cue: earthquake_splash."
    )
    return document(description, events + [ic, sc])


def earthquake_simulation():
    events = [
        continuous(0.0, 4.0, 0.35, 0.2),           # subtle rumble
        transient(0.8, 0.5, 0.4),                  # aftershocks
        transient(1.7, 0.4, 0.3),
        transient(2.9, 0.3, 0.2),
    ]
    envelope = curve("HapticIntensityControl", 0.0,
                     [(0.0, 0.0), (0.5, 0.8), (1.5, 1.0), (3.0, 0.6), (4.0, 0.0)])
    description = (
        "Earthquake simulation (4 s), numbers exactly as designed: a subtle continuous "
        "rumble 0-4 s (0.35, 0.2), aftershock transients at 0.8, 1.7 and 2.9 s, and an "
        "envelope, a HapticIntensityControl curve 0->0.0, 0.5->0.8, 1.5->1.0, 3.0->0.6, "
        "4.0->0.0. How Core Haptics bends this design: the envelope multiplies every "
        "event, the aftershocks included, so they are weaker than their numbers: " +
        effective_transients(events, envelope) +
        " (linear interpolation between control points). Cue: earthquake_simulation."
    )
    return document(description, events + [envelope])


def answer_correct():
    return document(
        "Correct answer: two rising transients 0.15 s apart, (0.6, 0.5) then (0.8, 0.7). "
        "No curves. Cue: answer_correct.",
        [transient(0.0, 0.6, 0.5), transient(0.15, 0.8, 0.7)])


def answer_wrong():
    return document(
        "Wrong answer: three falling transients 0.1 s apart, (0.8, 0.9), (0.55, 0.7), "
        "(0.3, 0.5). No curves. Cue: answer_wrong.",
        [transient(0.0, 0.8, 0.9), transient(0.1, 0.55, 0.7), transient(0.2, 0.3, 0.5)])


def score_perfect():
    events = [
        transient(0.0, 0.3, 0.3),                  # build-up
        transient(0.1, 0.5, 0.5),
        transient(0.2, 0.7, 0.7),
        continuous(0.4, 0.6, 0.9, 0.3),            # climax 0.4-1.0 s
        transient(1.2, 1.0, 0.9),                  # final
    ]
    # The curve starts at 0.4 s (points relative to it: 0, 0.3, 0.6 -> 0.4, 0.7, 1.0 s)
    # so that before 0.4 s the control is unambiguously at its neutral 1.
    ic = curve("HapticIntensityControl", 0.4, [(0.0, 0.7), (0.3, 1.0), (0.6, 0.4)])
    tail = parameter("HapticSharpnessControl", 1.5, 0.0)
    description = (
        "Perfect score (1.5 s), numbers exactly as designed: build-up transients at "
        "0.0 (0.3, 0.3), 0.1 (0.5, 0.5), 0.2 (0.7, 0.7); a continuous climax 0.4-1.0 s "
        "(0.9, 0.3) under a HapticIntensityControl curve 0.4->0.7, 0.7->1.0, 1.0->0.4 "
        "(the curve's Time is 0.4 and its point times 0, 0.3, 0.6 are relative to it); "
        "a final transient at 1.2 (1.0, 0.9). How Core Haptics bends this design: the "
        "curve applies to every event. Before 0.4 s the control is at its default 1, so "
        "the build-up plays as written; the climax swells 0.63 -> 0.9 -> 0.36; after "
        "the curve's last point (1.0 s) the control holds 0.4, so the final transient "
        "plays at intensity 0.4, not 1.0: " + effective_transients(events, ic) + ". "
        "A HapticSharpnessControl Parameter of 0 (neutral, changes nothing) at 1.5 s "
        "gives the pattern its designed 1.5 s length. Cue: score_perfect."
    )
    return document(description, events + [ic, tail])


def score_encouragement():
    return document(
        "Encouragement (a score short of perfect): two soft transients 0.15 s apart, "
        "(0.3, 0.2) then (0.5, 0.4). No curves. Cue: score_encouragement.",
        [transient(0.0, 0.3, 0.2), transient(0.15, 0.5, 0.4)])


LIBRARY = {
    "heartbeat": heartbeat,
    "capacitor_charge": capacitor_charge,
    "thud": thud,
    "earthquake_splash": earthquake_splash,
    "earthquake_simulation": earthquake_simulation,
    "answer_correct": answer_correct,
    "answer_wrong": answer_wrong,
    "score_perfect": score_perfect,
    "score_encouragement": score_encouragement,
}


def render(doc):
    # Strict JSON: no NaN/Infinity, no trailing commas, 4-space indent like Apple's files.
    return json.dumps(doc, indent=4, ensure_ascii=True, allow_nan=False) + "\n"


def main(argv):
    check = "--check" in argv[1:]
    differs = []
    for name, build in LIBRARY.items():
        path = os.path.join(OUT_DIR, name + ".ahap")
        text = render(build())
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        differs.append(path)
            except FileNotFoundError:
                differs.append(path)
        else:
            os.makedirs(OUT_DIR, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print("wrote", os.path.relpath(path, ROOT))
    if differs:
        for p in differs:
            print("%s: differs from scripts/make-haptics.py output" % os.path.relpath(p, ROOT),
                  file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
