/* passthrough.c - the plain ALSA low-pass loop follow-bench compares `hapticsynth follow` with:
 * what people do today to drive a bass shaker from what the computer plays (the sound captured,
 * low-passed, written to a second output), with as little in the way as ALSA allows.
 *
 *   passthrough -C CAPTURE [-c channels] -D PLAYBACK [-o channels] [-p period] [-l lowpass_hz]
 *
 * The capture runs at a quarter of the output period (as follow asks), the output with a
 * buffer of two periods; the captured channels are mixed to mono, low-passed (fourth-order
 * Butterworth, two RBJ biquads; -l 0: none) and written to every output channel as soon as
 * they are read. Both PCMs are opened at SCHED_FIFO 60 (if allowed) so that a sound server
 * plugin's threads inherit it. Prints "passthrough: ready" once both run; ends on SIGINT or
 * SIGTERM. A capture backlog beyond two fragments is read away (counted as trimmed), so that a
 * start-up or a stall does not stay as latency. An xrun on either side restarts both empty (so the capture's backlog does not stay as
 * latency) and is counted; the count is printed at the end.
 * Build: cc -O2 -o passthrough passthrough.c -lasound -lm */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static void die(const char *pcm, const char *what, int err)
{
	fprintf(stderr, "passthrough: %s: %s: %s\n", pcm, what, snd_strerror(err));
	exit(3);
}

static snd_pcm_t *open_pcm(const char *name, snd_pcm_stream_t stream, unsigned channels, unsigned rate,
			   snd_pcm_uframes_t period, snd_pcm_uframes_t buffer, snd_pcm_uframes_t start)
{
	snd_pcm_t *pcm;
	snd_pcm_hw_params_t *hw;
	snd_pcm_sw_params_t *sw;
	int err;
	if ((err = snd_pcm_open(&pcm, name, stream, 0)) < 0) die(name, "open", err);
	snd_pcm_hw_params_alloca(&hw);
	snd_pcm_hw_params_any(pcm, hw);
	if ((err = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) < 0 ||
	    (err = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE)) < 0 ||
	    (err = snd_pcm_hw_params_set_channels(pcm, hw, channels)) < 0 ||
	    (err = snd_pcm_hw_params_set_rate(pcm, hw, rate, 0)) < 0 ||
	    (err = snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, 0)) < 0 ||
	    (err = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer)) < 0 ||
	    (err = snd_pcm_hw_params(pcm, hw)) < 0)
		die(name, "hw_params", err);
	snd_pcm_sw_params_alloca(&sw);
	snd_pcm_sw_params_current(pcm, sw);
	if ((err = snd_pcm_sw_params_set_start_threshold(pcm, sw, start)) < 0 ||
	    (err = snd_pcm_sw_params_set_avail_min(pcm, sw, period)) < 0 ||
	    (err = snd_pcm_sw_params(pcm, sw)) < 0)
		die(name, "sw_params", err);
	return pcm;
}

/* After an xrun on either side both restart empty: what the capture held meanwhile would be
 * latency for good (the loop has no other control of it). */
static void restart(snd_pcm_t *in, snd_pcm_t *out, const char *capture, const char *playback)
{
	int e;
	snd_pcm_drop(in);
	snd_pcm_drop(out);
	if ((e = snd_pcm_prepare(in)) < 0) die(capture, "prepare", e);
	if ((e = snd_pcm_prepare(out)) < 0) die(playback, "prepare", e);
	snd_pcm_start(in);
}

struct biquad { double b0, b1, b2, a1, a2, z1, z2; };

static struct biquad lowpass(double hz, double q, double rate)
{
	double w = 2 * M_PI * hz / rate, alpha = sin(w) / (2 * q), c = cos(w), a0 = 1 + alpha;
	struct biquad f = { (1 - c) / 2 / a0, (1 - c) / a0, (1 - c) / 2 / a0, -2 * c / a0, (1 - alpha) / a0, 0, 0 };
	return f;
}

static float run(struct biquad *f, float x)
{
	double y = f->b0 * x + f->z1;
	f->z1 = f->b1 * x - f->a1 * y + f->z2;
	f->z2 = f->b2 * x - f->a2 * y;
	return (float)y;
}

int main(int argc, char **argv)
{
	const char *capture = NULL, *playback = NULL;
	unsigned in_channels = 1, out_channels = 2, rate = 48000;
	snd_pcm_uframes_t period = 256;
	double cutoff = 90;
	int opt;
	while ((opt = getopt(argc, argv, "C:c:D:o:p:l:")) != -1) {
		switch (opt) {
		case 'C': capture = optarg; break;
		case 'c': in_channels = (unsigned)atoi(optarg); break;
		case 'D': playback = optarg; break;
		case 'o': out_channels = (unsigned)atoi(optarg); break;
		case 'p': period = (snd_pcm_uframes_t)atol(optarg); break;
		case 'l': cutoff = atof(optarg); break;
		default:
			fprintf(stderr, "usage: passthrough -C CAPTURE [-c ch] -D PLAYBACK [-o ch] [-p period] [-l lowpass_hz]\n");
			return 2;
		}
	}
	if (!capture || !playback || in_channels < 1 || in_channels > 64 || out_channels < 1 || out_channels > 64 ||
	    period < 16 || period > 65536 || !(cutoff >= 0 && cutoff < rate / 2.0)) {
		fprintf(stderr, "passthrough: -C and -D are required; channels 1...64, period 16...65536, lowpass 0...rate/2\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	struct sched_param sp = { .sched_priority = 60 };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) fprintf(stderr, "passthrough: no real-time priority\n");

	snd_pcm_uframes_t chunk = period / 4 < 64 ? (period < 64 ? period : 64) : period / 4;
	snd_pcm_t *in = open_pcm(capture, SND_PCM_STREAM_CAPTURE, in_channels, rate, chunk, 8 * period, 1);
	snd_pcm_t *out = open_pcm(playback, SND_PCM_STREAM_PLAYBACK, out_channels, rate, period, 2 * period, period);
	float *ibuf = calloc(chunk * in_channels, sizeof(float));
	float *obuf = calloc((chunk > period ? chunk : period) * out_channels, sizeof(float));
	struct biquad f1 = lowpass(cutoff > 0 ? cutoff : 1000, 0.5411961001461970, rate);
	struct biquad f2 = lowpass(cutoff > 0 ? cutoff : 1000, 1.3065629648763766, rate);
	long xruns = 0, trimmed = 0;
	int primed = 0;
	snd_pcm_start(in);
	printf("passthrough: ready (capture period %lu, output period %lu, low-pass %.0f Hz)\n",
	       (unsigned long)chunk, (unsigned long)period, cutoff);
	fflush(stdout);
	while (!stop) {
		if (!primed) {
			/* One period of silence ahead: the output starts, and each chunk read is written behind it. */
			memset(obuf, 0, period * out_channels * sizeof(float));
			snd_pcm_writei(out, obuf, period);
			primed = 1;
		}
		snd_pcm_sframes_t got = snd_pcm_readi(in, ibuf, chunk);
		if (got < 0) {
			if (stop) break;
			xruns++;
			restart(in, out, capture, playback);
			primed = 0;
			continue;
		}
		for (snd_pcm_sframes_t i = 0; i < got; i++) {
			float sum = 0;
			for (unsigned c = 0; c < in_channels; c++) sum += ibuf[i * in_channels + c];
			float x = sum / (float)in_channels;
			if (cutoff > 0) x = run(&f2, run(&f1, x));
			for (unsigned c = 0; c < out_channels; c++) obuf[i * out_channels + c] = x;
		}
		/* Latency control, as a loop that means to stay minimal must have: a capture backlog
		 * beyond two fragments is read away, and a fragment that would stand behind more than a
		 * period and a fragment in the output is dropped (neither happens in a steady state). */
		snd_pcm_sframes_t waiting = snd_pcm_avail(in);
		while (waiting > (snd_pcm_sframes_t)(2 * chunk)) {
			snd_pcm_sframes_t skipped = snd_pcm_readi(in, ibuf, chunk);
			if (skipped <= 0) break;
			trimmed += skipped;
			waiting -= skipped;
		}
		snd_pcm_sframes_t put = snd_pcm_writei(out, obuf, (snd_pcm_uframes_t)got);
		if (put < 0) {
			if (stop) break;
			xruns++;
			restart(in, out, capture, playback);
			primed = 0;
		}
	}
	printf("passthrough: stopped (xruns %ld, frames trimmed %ld)\n", xruns, trimmed);
	snd_pcm_close(in);
	snd_pcm_close(out);
	free(ibuf);
	free(obuf);
	return 0;
}
