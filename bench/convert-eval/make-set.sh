#!/usr/bin/env bash
# Rebuilds the conversion evaluation set: public sounds paired with the haptic clips that
# professional tools (Lofelt Studio, Meta Haptics Studio, haptify) or designers (Apple's and
# Hapticlabs' AHAP samples) made for them. The data stays OUTSIDE the repository:
#
#   bench/convert-eval/make-set.sh [OUT]      (default: $HAPTICSYNTH_EVAL, else ../convert-eval)
#
# Sources: git snapshots of public repositories as the tool library's `fetch` leaves them
# ($HAPTICSYNTH_MIRROR, default /work/.mirror/OWNER+NAME/repo: Lofelt/NiceVibrations,
# facebook/haptics-studio, imedboumalek/haptify) and the shared AHAP corpus
# (../shared/corpus or $HAPTICSYNTH_CORPUS: Apple's and Hapticlabs' pairs). Each family is a
# folder of SOUND + REFERENCE (.haptic or .ahap, same base name); SOURCES.tsv lists every
# pair: file (the reference), repo, path, licence, kind (tool or designer), family, sound,
# sound_path. Families whose source is missing are skipped with a note. SETTINGS.tsv lists the
# Meta Haptics Studio settings each Meta clip records it was analysed with (gain, breakpoints
# per second, emphasis sensitivity, window, rise...), for convert-bench's `replica`.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-${HAPTICSYNTH_EVAL:-../convert-eval}}
MIRROR=${HAPTICSYNTH_MIRROR:-/work/.mirror}
CORPUS=${HAPTICSYNTH_CORPUS:-../shared/corpus}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

python3 - "$OUT" "$MIRROR" "$CORPUS" <<'PY'
import json, os, subprocess, sys, shutil
out, mirror, corpus = sys.argv[1:4]
rows = []
settings_rows = []  # Meta clips: the analysis settings each was made with (SETTINGS.tsv)

def record_settings(reference, clip):
    st = clip.get("settings")
    if not st:
        return
    pre, off = st.get("preprocessing", {}), st.get("offline", {})
    emph = off.get("emphasis", {})
    settings_rows.append([reference] + [str(v) for v in [
        pre.get("gain_db", 0), int(bool(pre.get("normalize_audio", False))), pre.get("normalize_level_db", -0.3),
        off.get("amplitude_breakpoints_per_second", 40), int(bool(off.get("emphasis_enabled", True))),
        emph.get("sensitivity_percent", 50), emph.get("peak_window_ms", 20), emph.get("minimum_rise", 0.05),
        emph.get("plateau_factor_percent", 25), emph.get("ducking_percent", 50)]])

def git_dir(repo):
    d = os.path.join(mirror, repo.replace("/", "+"), "repo")
    return d if os.path.isdir(d) else None

def git_show(gd, path):
    return subprocess.run(["git", "--git-dir", gd, "show", "HEAD:" + path], check=True, capture_output=True).stdout

def git_files(gd, under):
    r = subprocess.run(["git", "--git-dir", gd, "ls-tree", "-r", "--name-only", "HEAD", under], check=True, capture_output=True, text=True)
    return r.stdout.split("\n")

def write(family, name, data):
    os.makedirs(os.path.join(out, family), exist_ok=True)
    with open(os.path.join(out, family, name), "wb") as f:
        f.write(data)

def add(family, name, sound_ext, sound_bytes, ref_ext, ref_bytes, repo, path, sound_path, licence, kind):
    write(family, name + "." + sound_ext, sound_bytes)
    write(family, name + "." + ref_ext, ref_bytes)
    rows.append([f"{family}/{name}.{ref_ext}", repo, path, licence, kind, family, f"{family}/{name}.{sound_ext}", sound_path])

# Lofelt Studio exports in Nice Vibrations: the haptic sample library and the demo clips.
gd = git_dir("Lofelt/NiceVibrations")
if gd:
    lic = "CC BY-NC 3.0 (HapticSamples/HapticPackCClicense.txt; sounds from freesound.org, CC0/CC BY)"
    for under, family in [("interfaces/unity/NiceVibrations/Assets/NiceVibrations/HapticSamples", "lofelt-studio"),
                          ("interfaces/unity/NiceVibrations/Assets/NiceVibrations/Demo/DemoAssets", "lofelt-demo")]:
        files = set(git_files(gd, under))
        for path in sorted(files):
            if not path.endswith(".haptic"):
                continue
            base = os.path.basename(path)[:-7]
            folder = os.path.dirname(path)
            candidates = [os.path.join(folder, base + ".wav"), os.path.join(os.path.dirname(folder), "Sounds", base + ".wav")]
            sound = next((c for c in candidates if c in files), None)
            if sound is None:
                continue
            add(family, base, "wav", git_show(gd, sound), "haptic", git_show(gd, path), "Lofelt/NiceVibrations", path, sound,
                lic if family == "lofelt-studio" else "MIT (LICENSE.md, Meta Platforms)", "tool")
else:
    print("skipped lofelt-studio, lofelt-demo: no snapshot of Lofelt/NiceVibrations (fetch it)")

# Meta Haptics Studio: the sample packs' projects (.hasp: each clip's audio and haptic), and
# the Quest companion's sample project (uuid.haptic + uuid.wav, named in project.json).
gd = git_dir("facebook/haptics-studio")
if gd:
    lic = "CC BY 4.0 (haptics); audio: Meta Sound Collection terms (main/samples/LICENSE.txt), evaluation only, not redistributed"
    packs = ["Application_UX", "Footsteps", "Impacts", "Music", "Nature", "Objects", "Sound_FX", "Weapons"]
    for pack in packs:
        hasp = f"main/samples/{pack}/{pack}.hasp"
        project = json.loads(git_show(gd, hasp))
        for clip in project["clips"]:
            audio = clip.get("audioAsset", {}).get("path")
            haptic = clip.get("haptic")
            if not audio or not haptic:
                continue
            name = pack + "_" + clip["name"].replace("/", "_").replace(" ", "_")
            add("meta-studio", name, "wav", git_show(gd, f"main/samples/{pack}/{audio}"), "haptic",
                json.dumps(haptic).encode(), "facebook/haptics-studio", hasp + "#" + clip["name"], f"main/samples/{pack}/{audio}", lic, "tool")
            record_settings(f"meta-studio/{name}.haptic", clip)
    under = "companion/quest/Assets/Resources/SampleProject"
    project = json.loads(git_show(gd, under + "/project.json"))
    clips = {c["clipId"]: c for c in project["clips"]}
    files = set(git_files(gd, under))
    for path in sorted(files):
        if not path.endswith(".haptic"):
            continue
        uid = os.path.basename(path)[:-7]
        sound = f"{under}/{uid}.wav"
        if sound not in files:
            continue
        name = clips.get(uid, {}).get("name", uid).replace("/", "_").replace(" ", "_") + "_" + uid[:8]
        add("meta-companion", name, "wav", git_show(gd, sound), "haptic", git_show(gd, path), "facebook/haptics-studio", path, sound,
            "MIT (repository LICENSE); audio: Meta Sound Collection terms, evaluation only, not redistributed", "tool")
        if uid in clips:
            record_settings(f"meta-companion/{name}.haptic", clips[uid])
else:
    print("skipped meta-studio, meta-companion: no snapshot of facebook/haptics-studio (fetch it)")

# haptify: its converter's AHAP output for its example sounds.
gd = git_dir("imedboumalek/haptify")
if gd:
    files = set(git_files(gd, "example_app/assets"))
    for path in sorted(files):
        if not path.endswith(".ahap"):
            continue
        base = os.path.basename(path)[:-5]
        for ext in ["mp3", "wav"]:
            sound = f"example_app/assets/audio/{base}.{ext}"
            if sound in files:
                try:
                    data = git_show(gd, sound)
                except subprocess.CalledProcessError:
                    continue  # not in the snapshot (files of 4 MiB and more are left out)
                add("haptify", base, ext, data, "ahap", git_show(gd, path), "imedboumalek/haptify", path, sound, "MIT (LICENSE)", "tool")
                break
else:
    print("skipped haptify: no snapshot of imedboumalek/haptify (fetch it)")

# Designers' pairs from the shared corpus: AHAP files whose AudioCustom sound is there.
sources = os.path.join(corpus, "ahap", "SOURCES.tsv")
if os.path.exists(sources):
    with open(sources) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            name = row["file"]
            text = open(os.path.join(corpus, "ahap", name), encoding="utf-8").read()
            if "EventWaveformPath" not in text or row.get("expect") != "ok":
                continue
            import re
            paths = re.findall(r'"EventWaveformPath"\s*:\s*"([^"]+)"', text)
            if len(set(paths)) != 1:
                continue  # one sound per pattern: the pair is that sound and the haptic layers
            sound = os.path.join(corpus, "audio", paths[0])
            if not os.path.exists(sound):
                continue
            family = "apple" if row["repo"].startswith("apple/") else row["repo"].split("/")[0].lower()
            short = name.split("__")[-1][:-5]
            add(family, short, "wav", open(sound, "rb").read(), "ahap", text.encode(), row["repo"], row["path"],
                "audio/" + paths[0], row["license"], "designer")
else:
    print(f"skipped designers' pairs: no corpus at {corpus}")

with open(os.path.join(out, "SOURCES.tsv"), "w") as f:
    f.write("file\trepo\tpath\tlicence\tkind\tfamily\tsound\tsound_path\n")
    for r in rows:
        f.write("\t".join(r) + "\n")
with open(os.path.join(out, "SETTINGS.tsv"), "w") as f:
    f.write("file\tgain_db\tnormalize_audio\tnormalize_level_db\tamplitude_breakpoints_per_second\temphasis_enabled\t"
            "sensitivity_percent\tpeak_window_ms\tminimum_rise\tplateau_factor_percent\tducking_percent\n")
    for r in settings_rows:
        f.write("\t".join(r) + "\n")
families = {}
for r in rows:
    families[r[5]] = families.get(r[5], 0) + 1
print(f"{out}: {len(rows)} pairs: " + ", ".join(f"{k} {v}" for k, v in sorted(families.items())))
PY
