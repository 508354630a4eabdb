#!/bin/bash
# Regenerates the loaders of the libraries hapticsynth loads on first use, not at start-up
# (scripts/make-lazy-library.py): cairo (`plot`), libsndfile (sound files), alsa-lib (devices),
# libsoxr (resampling) and liblo (OSC). A function newly called from Swift or C (or from the tests)
# is added to its list here, then this is run again (a link without it fails: undefined symbol).
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
python3 scripts/make-lazy-library.py libasound.so.2 alsa/asoundlib.h Sources/CALSALoader/ALSALoader.c \
    snd_card_get_name snd_card_next snd_config_delete snd_config_get_string snd_config_get_type \
    snd_config_search snd_config_search_definition snd_config_unref snd_config_update_ref \
    snd_ctl_card_info snd_ctl_card_info_free snd_ctl_card_info_get_id \
    snd_ctl_card_info_get_longname snd_ctl_card_info_get_name snd_ctl_card_info_malloc \
    snd_ctl_close snd_ctl_open snd_device_name_free_hint snd_device_name_get_hint \
    snd_device_name_hint snd_lib_error_set_handler snd_pcm_avail_update snd_pcm_chmap_name \
    snd_pcm_close snd_pcm_delay snd_pcm_drop snd_pcm_free_chmaps snd_pcm_get_chmap \
    snd_pcm_hw_params snd_pcm_hw_params_any snd_pcm_hw_params_free \
    snd_pcm_hw_params_get_buffer_size snd_pcm_hw_params_get_channels \
    snd_pcm_hw_params_get_channels_max snd_pcm_hw_params_get_channels_min \
    snd_pcm_hw_params_get_period_size snd_pcm_hw_params_get_rate snd_pcm_hw_params_get_rate_max \
    snd_pcm_hw_params_get_rate_min snd_pcm_hw_params_malloc snd_pcm_hw_params_set_access \
    snd_pcm_hw_params_set_buffer_size_near snd_pcm_hw_params_set_channels \
    snd_pcm_hw_params_set_format snd_pcm_hw_params_set_period_size_near \
    snd_pcm_hw_params_set_rate_near snd_pcm_hw_params_test_channels snd_pcm_hw_params_test_format \
    snd_pcm_info snd_pcm_info_free snd_pcm_info_get_card snd_pcm_info_malloc snd_pcm_open \
    snd_pcm_prepare snd_pcm_query_chmaps snd_pcm_readi snd_pcm_recover snd_pcm_resume \
    snd_pcm_set_chmap snd_pcm_start snd_pcm_state snd_pcm_state_name snd_pcm_status \
    snd_pcm_status_free snd_pcm_status_get_avail snd_pcm_status_get_delay \
    snd_pcm_status_get_htstamp snd_pcm_status_get_state snd_pcm_status_get_trigger_htstamp \
    snd_pcm_status_malloc snd_pcm_sw_params snd_pcm_sw_params_current snd_pcm_sw_params_free \
    snd_pcm_sw_params_malloc snd_pcm_sw_params_set_avail_min snd_pcm_sw_params_set_start_threshold \
    snd_pcm_sw_params_set_tstamp_mode snd_pcm_sw_params_set_tstamp_type snd_pcm_type snd_pcm_wait \
    snd_pcm_writei snd_strerror
python3 scripts/make-lazy-library.py libsoxr.so.0 soxr.h Sources/CSoxrLoader/SoxrLoader.c \
    soxr_io_spec soxr_oneshot soxr_quality_spec soxr_runtime_spec
python3 scripts/make-lazy-library.py liblo.so.7 lo/lo.h Sources/CLibloLoader/LibloLoader.c \
    lo_bundle_add_message lo_bundle_free lo_bundle_new lo_bundle_serialise lo_message_add_double \
    lo_message_add_float lo_message_add_int32 lo_message_add_int64 lo_message_add_string \
    lo_message_deserialise lo_message_free lo_message_get_argc lo_message_get_argv \
    lo_message_get_timestamp lo_message_get_types lo_message_new lo_message_serialise \
    lo_server_add_method lo_server_dispatch_data lo_server_enable_queue lo_server_free \
    lo_server_new_with_proto
