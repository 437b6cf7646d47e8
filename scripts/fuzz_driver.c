// SPDX-License-Identifier: GPL-2.0
/*
 * The long fuzz's second phase (scripts/fuzz-long.sh): the harness of
 * kmod/tests/fuzz_core.c, with the same sanitizers and invariants, driven
 * without libFuzzer's per-edge instrumentation, so that 10^8 executions
 * fit in minutes. Each execution takes an input of the corpus libFuzzer
 * grew in the first phase and mutates it: flipped bits, random bytes, a
 * random run, a cut or a random tail, or a fresh random input, as
 * libFuzzer's mutators do, from a seeded xorshift (the same seed, the same
 * inputs).
 *
 *   fuzz_driver RUNS SEED CORPUS_FILE...
 *
 * Prints the executions and the inputs' mean length. A violated invariant
 * or a sanitizer report aborts, and the input is in ./driver-crash.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kmod/tests/fuzz_core.c"

#define MAXLEN 512

static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static unsigned char cur[MAXLEN];
static size_t curlen;

static void save_crash(int sig)
{
	FILE *f = fopen("driver-crash", "wb");

	(void)sig;
	if (f) {
		fwrite(cur, 1, curlen, f);
		fclose(f);
	}
	_exit(1);
}

int main(int argc, char **argv)
{
	unsigned char **in;
	size_t *len, n, i, k, total = 0;
	unsigned long long runs, r;

	if (argc < 4) {
		fprintf(stderr, "usage: fuzz_driver RUNS SEED CORPUS_FILE...\n");
		return 2;
	}
	runs = strtoull(argv[1], NULL, 10);
	rs = strtoull(argv[2], NULL, 10) | 1;
	n = argc - 3;
	in = calloc(n, sizeof(*in));
	len = calloc(n, sizeof(*len));
	for (i = 0; i < n; i++) {
		FILE *f = fopen(argv[3 + i], "rb");

		in[i] = malloc(MAXLEN);
		if (!f || !in[i]) {
			perror(argv[3 + i]);
			return 2;
		}
		len[i] = fread(in[i], 1, MAXLEN, f);
		fclose(f);
	}
	signal(SIGABRT, save_crash);
	for (r = 0; r < runs; r++) {
		unsigned m = rnd() % 8, j;

		if (m == 0) {			/* a fresh random input */
			curlen = rnd() % MAXLEN;
			for (k = 0; k < curlen; k++)
				cur[k] = (unsigned char)rnd();
		} else {
			i = rnd() % n;
			curlen = len[i];
			memcpy(cur, in[i], curlen);
			for (j = 1 + rnd() % 4; j > 0 && curlen; j--) {
				k = rnd() % curlen;
				switch (rnd() % 6) {
				case 0: cur[k] ^= 1 << (rnd() % 8); break;
				case 1: cur[k] = (unsigned char)rnd(); break;
				case 2: cur[k] = (unsigned char[]){ 0, 1, 0x7f,
					0x80, 0xff }[rnd() % 5]; break;
				case 3: memset(cur + k, rnd() % 2 ? 0xff : 0,
					       (curlen - k) < 8 ? curlen - k : 8);
					break;
				case 4: curlen = k + 1; break;
				default:
					while (curlen < MAXLEN && rnd() % 16)
						cur[curlen++] = (unsigned char)rnd();
				}
			}
		}
		total += curlen;
		LLVMFuzzerTestOneInput(cur, curlen);
	}
	printf("driver: %llu executions, mean input %.1f bytes, %zu corpus inputs\n",
	       runs, runs ? (double)total / runs : 0.0, n);
	return 0;
}
