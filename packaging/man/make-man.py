#!/usr/bin/env python3
"""Writes the section-1 manual pages of hapticsynth from its argument parser:

    hapticsynth --experimental-dump-help | packaging/man/make-man.py OUT_DIR VERSION

One page per verb (hapticsynth-render.1, ...) and hapticsynth.1 for the root command, made from
the same descriptions --help prints, so a page never disagrees with --help.
"""
import json
import sys

DATE_SOURCE = "hapticsynth"


def roff(text):
    """Escapes text for roff: backslashes, and a line starting with . or '."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith(".") or line.startswith("'"):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def paragraphs(text):
    """The discussion as roff: paragraphs (blank-line separated); indented lines (examples) kept as is."""
    out = []
    for block in text.strip().split("\n\n"):
        lines = block.split("\n")
        if any(line.startswith("  ") for line in lines[1:]) or lines[0].startswith("  "):
            head = [l for l in lines if not l.startswith("  ")]
            body = [l.strip() for l in lines if l.startswith("  ")]
            out.append(".PP\n" + roff(" ".join(head)) if head else ".PP")
            out.append(".nf\n.RS 4\n" + roff("\n".join(body)) + "\n.RE\n.fi")
        else:
            out.append(".PP\n" + roff(" ".join(l.strip() for l in lines)))
    return "\n".join(out)


def option_names(argument):
    names = []
    for name in argument.get("names", []):
        prefix = "--" if name["kind"] == "long" else "-"
        names.append("\\fB" + roff(prefix + name["name"]) + "\\fR")
    return ", ".join(names)


def synopsis(command, path):
    parts = ["\\fB" + roff(" ".join(path)) + "\\fR"]
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True):
            continue
        value = "\\fI" + roff(argument.get("valueName", "value")) + "\\fR"
        if argument["kind"] == "positional":
            part = value
        else:
            preferred = argument.get("preferredName") or argument["names"][0]
            flag = ("--" if preferred["kind"] == "long" else "-") + preferred["name"]
            part = "\\fB" + roff(flag) + "\\fR" + (" " + value if argument["kind"] == "option" else "")
        if argument.get("isRepeating"):
            part += " ..."
        if argument.get("isOptional"):
            part = "[" + part + "]"
        parts.append(part)
    if command.get("subcommands"):
        parts.append("\\fIverb\\fR")
    return " ".join(parts)


def page(command, path, version, verbs):
    name = "-".join(path)
    out = [
        '.TH "%s" 1 "" "hapticsynth %s" "User Commands"' % (roff(name.upper()), version),
        ".SH NAME",
        "%s \\- %s" % (roff(name), roff(command.get("abstract", ""))),
        ".SH SYNOPSIS",
        synopsis(command, path),
    ]
    if command.get("discussion"):
        out += [".SH DESCRIPTION", paragraphs(command["discussion"])]
    arguments = [a for a in command.get("arguments", []) if a.get("shouldDisplay", True)]
    positionals = [a for a in arguments if a["kind"] == "positional"]
    options = [a for a in arguments if a["kind"] != "positional"]
    if positionals:
        out.append(".SH ARGUMENTS")
        for argument in positionals:
            out += [".TP", "\\fI" + roff(argument.get("valueName", "value")) + "\\fR", roff(argument.get("abstract", ""))]
            if argument.get("discussion"):
                out.append(paragraphs(argument["discussion"]))
    if options:
        out.append(".SH OPTIONS")
        for argument in options:
            head = option_names(argument)
            if argument["kind"] == "option":
                head += " \\fI" + roff(argument.get("valueName", "value")) + "\\fR"
            text = argument.get("abstract", "")
            if argument.get("defaultValue") is not None:
                text += " (default: %s)" % argument["defaultValue"]
            out += [".TP", head, roff(text)]
            if argument.get("discussion"):
                out.append(paragraphs(argument["discussion"]))
    if verbs:
        out.append(".SH VERBS")
        for verb in verbs:
            out += [".TP", "\\fBhapticsynth\\-%s\\fR(1)" % roff(verb["commandName"]), roff(verb.get("abstract", ""))]
    out += [".SH SEE ALSO"]
    if len(path) > 1:
        out.append("\\fBhapticsynth\\fR(1), \\fBhapticsynth\\fR(3)")
    else:
        out.append(", ".join("\\fBhapticsynth\\-%s\\fR(1)" % roff(v["commandName"]) for v in verbs) + ", \\fBhapticsynth\\fR(3)")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: hapticsynth --experimental-dump-help | make-man.py OUT_DIR VERSION")
    out_dir, version = sys.argv[1], sys.argv[2]
    root = json.load(sys.stdin)["command"]
    verbs = [v for v in root.get("subcommands", []) if v.get("shouldDisplay", True) and v["commandName"] != "help"]
    pages = {"hapticsynth.1": page(root, ["hapticsynth"], version, verbs)}
    for verb in verbs:
        pages["hapticsynth-%s.1" % verb["commandName"]] = page(verb, ["hapticsynth", verb["commandName"]], version, [])
    for file, text in pages.items():
        with open("%s/%s" % (out_dir, file), "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
