/* floor.c - hapticsynth's latency floor: the smallest write-to-server latency an ALSA PCM
 * allows with given period/buffer settings, measured with no engine in the way.
 *
 *   floor -D PCM [-c channels] [-r rate] [-p period] [-b buffer] [-n impulses] [-i interval_ms]
 *         [-o log.csv]
 *
 * Plays silence continuously; every interval one write block starts with a one-frame impulse
 * (0.9 on every channel). Just before that snd_pcm_writei it logs CLOCK_MONOTONIC and
 * snd_pcm_delay, so a recorder that stamps what reaches the server in CLOCK_MONOTONIC
 * (jack-recorder.c) gives the latency per impulse. The PCM is opened non-blocking and every
 * wait is bounded (2 x buffer time): a dead JACK server gives no error, only silence.
 * Log columns: impulse,frame,t_write_ns,delay_frames
 * Build: cc -O2 -o floor floor.c -lasound */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what, const char *pcm, int err)
{
	fprintf(stderr, "floor: %s: %s: %s\n", pcm, what, snd_strerror(err));
	exit(3);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *logpath = NULL;
	unsigned channels = 3, rate = 48000;
	snd_pcm_uframes_t period = 256, buffer = 1024;
	int impulses = 50, opt;
	double interval_ms = 100;
	while ((opt = getopt(argc, argv, "D:c:r:p:b:n:i:o:")) != -1) {
		switch (opt) {
		case 'D': dev = optarg; break;
		case 'c': channels = (unsigned)atoi(optarg); break;
		case 'r': rate = (unsigned)atoi(optarg); break;
		case 'p': period = (snd_pcm_uframes_t)atol(optarg); break;
		case 'b': buffer = (snd_pcm_uframes_t)atol(optarg); break;
		case 'n': impulses = atoi(optarg); break;
		case 'i': interval_ms = atof(optarg); break;
		case 'o': logpath = optarg; break;
		default:
			fprintf(stderr, "usage: floor -D PCM [-c ch] [-r rate] [-p period] [-b buffer] [-n impulses] [-i interval_ms] [-o log.csv]\n");
			return 2;
		}
	}
	if (!dev || channels < 1 || impulses < 1 || interval_ms <= 0) {
		fprintf(stderr, "floor: -D PCM is required (and counts must be positive)\n");
		return 2;
	}
	FILE *log = logpath ? fopen(logpath, "w") : stdout;
	if (!log) { perror(logpath); return 2; }

	snd_pcm_t *pcm;
	int err = snd_pcm_open(&pcm, dev, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);
	if (err < 0) die("open", dev, err);
	snd_pcm_hw_params_t *hw;
	snd_pcm_sw_params_t *sw;
	snd_pcm_hw_params_malloc(&hw);
	snd_pcm_sw_params_malloc(&sw);
	if ((err = snd_pcm_hw_params_any(pcm, hw)) < 0) die("hw_params_any", dev, err);
	if ((err = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) < 0) die("access", dev, err);
	if ((err = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE)) < 0) die("format FLOAT_LE", dev, err);
	if ((err = snd_pcm_hw_params_set_channels(pcm, hw, channels)) < 0) die("channels", dev, err);
	if ((err = snd_pcm_hw_params_set_rate(pcm, hw, rate, 0)) < 0) die("rate", dev, err);
	if ((err = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer)) < 0) die("buffer size", dev, err);
	if ((err = snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, NULL)) < 0) die("period size", dev, err);
	if ((err = snd_pcm_hw_params(pcm, hw)) < 0) die("hw_params", dev, err);
	snd_pcm_hw_params_get_period_size(hw, &period, NULL);
	snd_pcm_hw_params_get_buffer_size(hw, &buffer);
	if ((err = snd_pcm_sw_params_current(pcm, sw)) < 0) die("sw_params_current", dev, err);
	snd_pcm_sw_params_set_avail_min(pcm, sw, period);
	/* Start as soon as one period is queued: the floor is about the smallest latency. */
	snd_pcm_sw_params_set_start_threshold(pcm, sw, period);
	snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE);
	snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC);
	if ((err = snd_pcm_sw_params(pcm, sw)) < 0) die("sw_params", dev, err);
	fprintf(stderr, "floor: %s period=%lu buffer=%lu (%.2f ms) rate=%u channels=%u\n", dev,
		(unsigned long)period, (unsigned long)buffer, buffer * 1e3 / rate, rate, channels);

	int wait_ms = (int)(2 * buffer * 1000 / rate) + 1;
	float *block = calloc(period * channels, sizeof(float));
	long interval = (long)(interval_ms * rate / 1000);
	if (interval < (long)period) interval = (long)period;
	int64_t total = (int64_t)interval * (impulses + 1), frame = 0, next = interval;
	int done = 0, xruns = 0;
	fprintf(log, "impulse,frame,t_write_ns,delay_frames\n");
	while (frame < total) {
		/* Blocks end exactly at impulse frames so each impulse starts a write. */
		snd_pcm_uframes_t n = period;
		int impulse = (frame == next && done < impulses);
		if (!impulse && frame + (int64_t)n > next) n = (snd_pcm_uframes_t)(next - frame);
		memset(block, 0, n * channels * sizeof(float));
		if (impulse)
			for (unsigned c = 0; c < channels; c++) block[c] = 0.9f;
		snd_pcm_uframes_t off = 0;
		int64_t t_write = 0;
		snd_pcm_sframes_t delay = 0;
		while (off < n) {
			if (impulse && off == 0) {
				if (snd_pcm_delay(pcm, &delay) < 0) delay = 0;
				t_write = mono_ns();
			}
			snd_pcm_sframes_t r = snd_pcm_writei(pcm, block + off * channels, n - off);
			if (r == -EAGAIN) {
				int w = snd_pcm_wait(pcm, wait_ms);
				if (w == 0) { fprintf(stderr, "floor: %s: no progress within %d ms (server gone?)\n", dev, wait_ms); return 4; }
				if (w < 0 && snd_pcm_recover(pcm, w, 1) < 0) die("wait", dev, w);
				continue;
			}
			if (r < 0) {
				if (r == -EPIPE) xruns++;
				if (snd_pcm_recover(pcm, (int)r, 1) < 0) die("write", dev, (int)r);
				continue;
			}
			off += (snd_pcm_uframes_t)r;
		}
		if (impulse) {
			fprintf(log, "%d,%lld,%lld,%ld\n", done, (long long)frame, (long long)t_write, (long)delay);
			done++;
			next += interval;
		}
		frame += (int64_t)n;
	}
	/* Let the last impulse play out (bounded), then stop. */
	int64_t deadline = mono_ns() + 2 * (int64_t)buffer * 1000000000 / rate + 200000000;
	snd_pcm_sframes_t d;
	while (mono_ns() < deadline && snd_pcm_delay(pcm, &d) == 0 && d > 0) usleep(2000);
	snd_pcm_close(pcm);
	fprintf(stderr, "floor: %d impulses written, %d xruns\n", done, xruns);
	if (log != stdout) fclose(log);
	free(block);
	snd_pcm_hw_params_free(hw);
	snd_pcm_sw_params_free(sw);
	return 0;
}
