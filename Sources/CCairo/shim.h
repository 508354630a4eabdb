// cairo (LGPL-2.1 / MPL-1.1, loaded at run time by CCairoLoader): the image surface with its PNG reader and
// writer, and the SVG and PDF surfaces, for HapticPlot's one drawing path to three formats.
#include <cairo/cairo.h>
#include <cairo/cairo-svg.h>
#include <cairo/cairo-pdf.h>
