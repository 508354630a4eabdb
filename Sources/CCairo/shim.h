// cairo (LGPL-2.1 / MPL-1.1, linked dynamically): the image surface with its PNG reader and
// writer, and the SVG and PDF surfaces, for HapticPlot's one drawing path to three formats.
#include <cairo.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
