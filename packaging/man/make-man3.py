#!/usr/bin/env python3
"""Writes hapticsynth.3, the manual page of the C library, from its header's comments:

    packaging/man/make-man3.py Sources/CHapticSynth/include/hapticsynth.h VERSION > hapticsynth.3

The header is the reference (its opening comment: conventions and threads; a /** */ comment
before each declaration): the page is made from it, so every hs_ function the header declares
is on the page (Tests/HapticSynthCTests/ManualPageTests.swift checks it).
"""
import re
import sys


def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + l) if l.startswith((".", "'")) else l for l in text.split("\n"))


def comment_text(comment):
    """The words of a /* */ or /** */ comment, its stars and frame removed."""
    body = re.sub(r"^/\*\*?|\*/$", "", comment.strip())
    lines = [re.sub(r"^\s*\* ?", "", line) for line in body.split("\n")]
    return "\n".join(lines).strip()


def as_paragraphs(text):
    out = []
    for block in re.split(r"\n\s*\n", text):
        lines = block.split("\n")
        if any(l.startswith("  ") for l in lines):
            out.append(".PP\n.nf\n" + roff("\n".join(lines)) + "\n.fi")
        else:
            out.append(".PP\n" + roff(" ".join(l.strip() for l in lines)))
    return "\n".join(out)


def main():
    header_path, version = sys.argv[1], sys.argv[2]
    source = open(header_path).read()
    opening = re.match(r"\s*(/\*.*?\*/)", source, re.S).group(1)
    intro = comment_text(opening)
    # The opening comment: the first paragraph describes; the sections after ---- lines follow.
    parts = [p.strip() for p in re.split(r"\n-{20,}\n?", intro) if p.strip()]
    out = [
        '.TH "HAPTICSYNTH" 3 "" "libhapticsynth %s" "Library Functions Manual"' % version,
        ".SH NAME",
        "hapticsynth \\- the C API of libhapticsynth, the audio\\-haptic synthesizer",
        ".SH SYNOPSIS",
        ".nf",
        ".B #include <hapticsynth.h>",
        ".PP",
        "cc app.c $(pkg\\-config \\-\\-cflags \\-\\-libs hapticsynth)",
        ".fi",
        ".SH DESCRIPTION",
        as_paragraphs(parts[0]),
    ]
    for part in parts[1:]:
        title, _, rest = part.partition("\n")
        out += [".SH " + roff(title.strip()), as_paragraphs(rest.strip())]

    # Declarations with their comments, under the header's section titles.
    body = source[len(opening) + source.index(opening):]
    token = re.compile(
        r"/\* ={20,}\s*\n\s*\* (?P<section>[^\n]+)\n\s*\* ={20,} \*/"  # a section title
        r"|(?P<doc>/\*\*(?:(?!\*/).)*\*/)\s*\n(?P<decl>[^/#{}\s][^;{}]*?\bhs_\w+\s*\([^;]*?\);)",  # a function
        re.S)
    out.append(".SH FUNCTIONS")
    for match in token.finditer(body):
        if match.group("section"):
            out.append(".SS " + roff(match.group("section").strip()))
            continue
        decl = " ".join(match.group("decl").split())
        out += [".PP", ".nf", "\\fB" + roff(decl) + "\\fR", ".fi", ".RS 4", as_paragraphs(comment_text(match.group("doc"))), ".RE"]
    # The types: the header's own text.
    out.append(".SH TYPES AND CONSTANTS")
    out.append(".PP\nThe enumerations and option structures, as the header declares them:")
    for match in re.finditer(r"(?:/\*[^*][^\n]*\*/\n)?(?:enum|typedef struct \w+) \{.*?\n\}[^;]*;", body, re.S):
        out += [".PP", ".nf", ".RS 4", roff(match.group(0)), ".RE", ".fi"]
    out += [".SH SEE ALSO", "\\fBhapticsynth\\fR(1), \\fBpkg\\-config\\fR(1)"]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
