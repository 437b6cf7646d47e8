// SPDX-License-Identifier: GPL-2.0
/* tcpflows' verifiable payload, see payload.h. */
#include <stdlib.h>
#include <string.h>

#include "payload.h"

int payload_init(struct payload *pl, uint64_t seed, size_t chunk)
{
	uint64_t x = seed ? seed : 1;
	size_t i, n = PL_PERIOD + chunk;

	pl->chunk = chunk;
	pl->buf = malloc(n);
	if (!pl->buf)
		return -1;
	for (i = 0; i < PL_PERIOD; i++) {	/* xorshift64 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pl->buf[i] = x >> 24;
	}
	for (; i < n; i++)			/* the wrap, contiguous */
		pl->buf[i] = pl->buf[i % PL_PERIOD];
	return 0;
}

void payload_free(struct payload *pl)
{
	free(pl->buf);
	pl->buf = NULL;
}

static size_t offset_of(uint32_t id, uint64_t pos)
{
	return ((uint64_t)id * PL_STRIDE + pos % PL_PERIOD) % PL_PERIOD;
}

const unsigned char *payload_at(const struct payload *pl, uint32_t id,
				uint64_t pos)
{
	return pl->buf + offset_of(id, pos);
}

int64_t payload_check(const struct payload *pl, uint32_t id, uint64_t pos,
		      const unsigned char *buf, size_t len)
{
	while (len) {
		size_t n = len < pl->chunk ? len : pl->chunk, i;
		const unsigned char *want = payload_at(pl, id, pos);

		if (memcmp(want, buf, n)) {
			for (i = 0; want[i] == buf[i]; i++)
				;
			return (int64_t)(pos + i);
		}
		pos += n;
		buf += n;
		len -= n;
	}
	return -1;
}
