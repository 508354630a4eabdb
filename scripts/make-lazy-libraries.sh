#!/bin/bash
# Regenerates the loaders of the libraries hapticsynth loads on first use, not at start-up
# (scripts/make-lazy-library.py): cairo (`plot`) and libsndfile (sound files). A function newly
# called from Swift (or from the tests) is added to its list here, then this is run again.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/make-lazy-library.py libcairo.so.2 cairo/cairo.h,cairo/cairo-svg.h,cairo/cairo-pdf.h Sources/CCairoLoader/CairoLoader.c \
    cairo_arc cairo_clip cairo_close_path cairo_create cairo_destroy cairo_fill \
    cairo_font_options_create cairo_font_options_destroy cairo_font_options_set_hint_metrics \
    cairo_has_current_point cairo_image_surface_create \
    cairo_image_surface_create_from_png_stream cairo_image_surface_get_data \
    cairo_image_surface_get_height cairo_image_surface_get_stride \
    cairo_image_surface_get_width cairo_line_to cairo_matrix_init_translate cairo_move_to \
    cairo_new_path cairo_new_sub_path cairo_recording_surface_create cairo_pattern_create_for_surface cairo_pattern_destroy \
    cairo_pattern_set_extend cairo_pattern_set_filter cairo_pattern_set_matrix \
    cairo_pdf_surface_create_for_stream cairo_pdf_surface_set_metadata cairo_rectangle \
    cairo_restore cairo_rotate cairo_save cairo_select_font_face cairo_set_dash \
    cairo_set_font_options cairo_set_font_size cairo_set_line_cap cairo_set_line_join \
    cairo_set_line_width cairo_set_source cairo_set_source_rgba cairo_show_text cairo_status \
    cairo_status_to_string cairo_stroke cairo_surface_destroy cairo_surface_finish \
    cairo_surface_flush cairo_surface_mark_dirty cairo_surface_status \
    cairo_surface_write_to_png_stream cairo_svg_surface_create_for_stream \
    cairo_svg_surface_set_document_unit cairo_text_extents cairo_translate
python3 scripts/make-lazy-library.py libsndfile.so.1 sndfile.h Sources/CSndFileLoader/SndFileLoader.c \
    sf_close sf_command sf_error sf_error_number sf_format_check sf_open sf_open_fd sf_readf_float \
    sf_seek sf_strerror sf_writef_float sf_writef_int
