/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpflows --verify: a payload whose every byte depends on the flow and
 * its offset in the stream, so that the receiver checks content, not only
 * counts. A pseudo-random pattern of PL_PERIOD bytes (a prime, from the
 * seed) is read at (flow id * PL_STRIDE + offset) mod PL_PERIOD: a lost,
 * duplicated, reordered or corrupted segment, or bytes of another flow,
 * show up as a mismatch unless they are shifted by an exact multiple of
 * PL_PERIOD (about 1 MB), which TCP cannot produce by accident.
 */
#ifndef TOOLS_PAYLOAD_H
#define TOOLS_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#define PL_PERIOD	1000003u	/* prime */
#define PL_STRIDE	104729u		/* prime: where flow id 1 starts */

struct payload {
	unsigned char *buf;	/* PL_PERIOD + chunk bytes: any chunk from */
	size_t chunk;		/* an offset < PL_PERIOD is contiguous */
};

/* The pattern of @seed, readable in pieces of up to @chunk bytes. */
int payload_init(struct payload *pl, uint64_t seed, size_t chunk);
void payload_free(struct payload *pl);

/* Where the bytes of flow @id from stream offset @pos start. */
const unsigned char *payload_at(const struct payload *pl, uint32_t id,
				uint64_t pos);

/*
 * Check @len received bytes of flow @id at stream offset @pos: -1 if they
 * are right, else the stream offset of the first wrong byte.
 */
int64_t payload_check(const struct payload *pl, uint32_t id, uint64_t pos,
		      const unsigned char *buf, size_t len);

#endif
