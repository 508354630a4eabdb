#include "CALSASupport.h"
#include <alsa/asoundlib.h>
#include <stdlib.h>

int hs_chmap_query(snd_pcm_t *pcm, int *out, int capacity) {
    snd_pcm_chmap_query_t **maps = snd_pcm_query_chmaps(pcm);
    if (!maps) return 0;
    int n = 0;
    for (snd_pcm_chmap_query_t **p = maps; *p; p++) {
        unsigned channels = (*p)->map.channels;
        if (n + 2 + (int)channels > capacity) {
            snd_pcm_free_chmaps(maps);
            return -1;
        }
        out[n++] = (int)(*p)->type;
        out[n++] = (int)channels;
        for (unsigned c = 0; c < channels; c++) out[n++] = (int)((*p)->map.pos[c] & SND_CHMAP_POSITION_MASK);
    }
    snd_pcm_free_chmaps(maps);
    return n;
}

int hs_chmap_get(snd_pcm_t *pcm, int *positions, int capacity) {
    snd_pcm_chmap_t *map = snd_pcm_get_chmap(pcm);
    if (!map) return -1;
    int channels = (int)map->channels;
    if (channels > capacity) {
        free(map);
        return -1;
    }
    for (int c = 0; c < channels; c++) positions[c] = (int)(map->pos[c] & SND_CHMAP_POSITION_MASK);
    free(map);
    return channels;
}

int hs_chmap_set(snd_pcm_t *pcm, const int *positions, int channels) {
    snd_pcm_chmap_t *map = malloc(sizeof(snd_pcm_chmap_t) + (size_t)channels * sizeof(unsigned int));
    if (!map) return -ENOMEM;
    map->channels = (unsigned)channels;
    for (int c = 0; c < channels; c++) map->pos[c] = (unsigned)positions[c];
    int err = snd_pcm_set_chmap(pcm, map);
    free(map);
    return err;
}
