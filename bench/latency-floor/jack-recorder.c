/* jack-recorder.c - hapticsynth's JACK recorder for latency benchmarks: a native JACK client
 * with N input ports that records what reaches the server and stamps every cycle in
 * CLOCK_MONOTONIC (the engine's clock).
 *
 *   jack-recorder [-n client] [-c channels] [-o rec.f32] [-s stamps.csv] [-O onsets.csv] [-t threshold] [-T]
 *
 * -T: also an output port out_N per input, carrying what in_N received in the same cycle: a bus
 * inside the JACK server that a player writes to and any number of capture clients read from
 * (JACK has no sink with a monitor; a player's own port names are not known in advance).
 *
 * rec.f32: interleaved float32 as received. stamps.csv: frame,t_ns (frame index of the first
 * frame of each cycle and the cycle's start in CLOCK_MONOTONIC). onsets.csv: onset,frame,t_ns
 * for every rise of channel 0 above the threshold after at least 50 ms below it.
 * jack2's time base (jack_get_time) is CLOCK_MONOTONIC_RAW, not CLOCK_MONOTONIC; the offset
 * between them is measured when starting and re-measured every second by the writer thread.
 * Prints "READY" once its ports exist and it is active; stops on SIGINT/SIGTERM or server exit.
 * Build: cc -O2 -o jack-recorder jack-recorder.c -ljack -lpthread */
#define _GNU_SOURCE
#include <jack/jack.h>
#include <jack/ringbuffer.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXCH 8
struct cycle { uint64_t frame; jack_time_t start_us; uint32_t nframes; };

static jack_client_t *client;
static jack_port_t *ports[MAXCH], *thru[MAXCH];
static unsigned nch = 3;
static jack_ringbuffer_t *audio_rb, *cycle_rb;
static uint64_t frames_seen;
static atomic_int overflow, stop_flag;
static float interleave[MAXCH * 8192];

static int process(jack_nframes_t n, void *arg)
{
	(void)arg;
	jack_nframes_t current_frames;
	jack_time_t current_us, next_us;
	float period_us;
	jack_get_cycle_times(client, &current_frames, &current_us, &next_us, &period_us);
	if (n > 8192) return 0;
	for (unsigned c = 0; c < nch; c++) {
		const float *in = jack_port_get_buffer(ports[c], n);
		for (jack_nframes_t i = 0; i < n; i++) interleave[i * nch + c] = in[i];
		if (thru[c]) memcpy(jack_port_get_buffer(thru[c], n), in, n * sizeof(float));
	}
	size_t bytes = (size_t)n * nch * sizeof(float);
	if (jack_ringbuffer_write_space(audio_rb) < bytes || jack_ringbuffer_write_space(cycle_rb) < sizeof(struct cycle)) {
		atomic_fetch_add(&overflow, 1);
		return 0;
	}
	jack_ringbuffer_write(audio_rb, (const char *)interleave, bytes);
	struct cycle c = { frames_seen, current_us, n };
	jack_ringbuffer_write(cycle_rb, (const char *)&c, sizeof c);
	frames_seen += n;
	return 0;
}

static void on_signal(int s) { (void)s; atomic_store(&stop_flag, 1); }
static void on_shutdown(void *arg) { (void)arg; atomic_store(&stop_flag, 1); }

/* CLOCK_MONOTONIC - jack time, in ns, bracketed to reduce the error of the two reads. */
static int64_t clock_offset_ns(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	jack_time_t j = jack_get_time();
	clock_gettime(CLOCK_MONOTONIC, &b);
	int64_t mid = ((int64_t)a.tv_sec * 1000000000 + a.tv_nsec + (int64_t)b.tv_sec * 1000000000 + b.tv_nsec) / 2;
	return mid - (int64_t)j * 1000;
}

int main(int argc, char **argv)
{
	const char *name = "hs_rec", *rec_path = "rec.f32", *stamp_path = "stamps.csv", *onset_path = "onsets.csv";
	float threshold = 0.5f;
	int opt, through = 0;
	while ((opt = getopt(argc, argv, "n:c:o:s:O:t:T")) != -1) {
		switch (opt) {
		case 'n': name = optarg; break;
		case 'c': nch = (unsigned)atoi(optarg); break;
		case 'o': rec_path = optarg; break;
		case 's': stamp_path = optarg; break;
		case 'O': onset_path = optarg; break;
		case 't': threshold = (float)atof(optarg); break;
		case 'T': through = 1; break;
		default:
			fprintf(stderr, "usage: jack-recorder [-n client] [-c channels] [-o rec.f32] [-s stamps.csv] [-O onsets.csv] [-t threshold] [-T]\n");
			return 2;
		}
	}
	if (nch < 1 || nch > MAXCH) { fprintf(stderr, "jack-recorder: 1..%d channels\n", MAXCH); return 2; }
	jack_status_t status;
	client = jack_client_open(name, JackNoStartServer | JackUseExactName, &status);
	if (!client) { fprintf(stderr, "jack-recorder: cannot connect to the JACK server (status 0x%x)\n", status); return 3; }
	jack_nframes_t rate = jack_get_sample_rate(client);
	for (unsigned c = 0; c < nch; c++) {
		char port[32];
		snprintf(port, sizeof port, "in_%u", c + 1);
		ports[c] = jack_port_register(client, port, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
		if (!ports[c]) { fprintf(stderr, "jack-recorder: cannot register %s\n", port); return 3; }
		if (!through) continue;
		snprintf(port, sizeof port, "out_%u", c + 1);
		thru[c] = jack_port_register(client, port, JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
		if (!thru[c]) { fprintf(stderr, "jack-recorder: cannot register %s\n", port); return 3; }
	}
	audio_rb = jack_ringbuffer_create((size_t)rate * 4 * nch * sizeof(float));
	cycle_rb = jack_ringbuffer_create(sizeof(struct cycle) * 65536);
	jack_ringbuffer_mlock(audio_rb);
	jack_ringbuffer_mlock(cycle_rb);
	memset(audio_rb->buf, 0, audio_rb->size);
	memset(cycle_rb->buf, 0, cycle_rb->size);
	FILE *rec = fopen(rec_path, "wb"), *stamps = fopen(stamp_path, "w"), *onsets = fopen(onset_path, "w");
	if (!rec || !stamps || !onsets) { perror("jack-recorder: output file"); return 2; }
	fprintf(stamps, "frame,t_ns\n");
	fprintf(onsets, "onset,frame,t_ns\n");
	jack_set_process_callback(client, process, NULL);
	jack_on_shutdown(client, on_shutdown, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	int64_t offset = clock_offset_ns();
	int ticks = 0;
	if (jack_activate(client)) { fprintf(stderr, "jack-recorder: cannot activate\n"); return 3; }
	printf("READY rate=%u period=%u clock_offset_ms=%.3f\n", rate, jack_get_buffer_size(client), offset / 1e6);
	fflush(stdout);

	/* Non-RT side: drain the rings to files, find onsets, keep the clock offset current. */
	static float chunk[MAXCH * 8192];
	uint64_t frame = 0;
	int loud = 0, nonset = 0;
	int64_t quiet_frames = rate; /* start "quiet" so the first impulse counts */
	for (;;) {
		int stopping = atomic_load(&stop_flag);
		struct cycle c;
		while (jack_ringbuffer_read_space(cycle_rb) >= sizeof c) {
			jack_ringbuffer_read(cycle_rb, (char *)&c, sizeof c);
			size_t bytes = (size_t)c.nframes * nch * sizeof(float);
			while (jack_ringbuffer_read_space(audio_rb) < bytes) usleep(100);
			jack_ringbuffer_read(audio_rb, (char *)chunk, bytes);
			fwrite(chunk, 1, bytes, rec);
			int64_t t0 = (int64_t)c.start_us * 1000 + offset;
			fprintf(stamps, "%llu,%lld\n", (unsigned long long)c.frame, (long long)t0);
			for (uint32_t i = 0; i < c.nframes; i++) {
				float v = chunk[i * nch];
				if (v > threshold) {
					if (!loud && quiet_frames >= (int64_t)rate / 20) {
						int64_t t = t0 + (int64_t)i * 1000000000 / rate;
						fprintf(onsets, "%d,%llu,%lld\n", nonset++, (unsigned long long)(c.frame + i), (long long)t);
					}
					loud = 1;
					quiet_frames = 0;
				} else {
					loud = 0;
					quiet_frames++;
				}
			}
			frame = c.frame + c.nframes;
		}
		if (stopping) break;
		if (++ticks >= 200) { /* about every second (5 ms sleeps) */
			offset = clock_offset_ns();
			ticks = 0;
		}
		usleep(5000);
	}
	jack_deactivate(client);
	jack_client_close(client);
	fclose(rec);
	fclose(stamps);
	fclose(onsets);
	fprintf(stderr, "jack-recorder: %llu frames, %d onsets, %d ring overflows\n", (unsigned long long)frame, nonset,
		atomic_load(&overflow));
	return 0;
}
