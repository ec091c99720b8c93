/*
 * crossing.h - a message's volume counters, counted as its packets cross
 * (emu/crossing.c; doc/series.md, "When traffic is counted").
 *
 * Without virtual time a message's counters land in the store at once
 * (inject.c).  In virtual time the timing model reports every train that
 * starts onto a channel (temu_tm_set_hop), and these functions add what
 * that crossing accounts for, when it happens:
 *   - a router-to-router link: that hop's link counters (Gemini tile phits
 *     and packets of the receiving tile, BG/Q chunks sent and packets
 *     received, BG/P packets, chunks and acknowledgements);
 *   - a node's injection channel: Gemini's host tiles, and the node
 *     counters of the injecting side (NIC requests and responses sent,
 *     BG/Q message-unit injection and its L2 reads);
 *   - a node's ejection channel: the node counters of the receiving side.
 * Times: a packet counts as a packet when it starts onto the channel; its
 * phits (Gemini) or chunks (Blue Gene) count one by one as the channel
 * finishes sending each, unit j of u at start + (j + 1) x ser / u.  Summed
 * over a message's crossings the counters are exactly temu_inject's.
 */
#ifndef TEMU_CROSSING_H
#define TEMU_CROSSING_H

#ifndef TEMU_BUILDING_LIBRARY
#error "crossing.h is private to libtorusemu"
#endif

#include "torusemu_crossing.h"

#pragma GCC visibility push(hidden)

/* Start loading the store's counters that temu_crossing_count will add
 * to for link crossing h, for writing: on a large machine they are
 * rarely in cache (Mira's BG/Q NW counters alone are 90 MB), and the
 * atomic add waits for its line with nothing else under way.  Issued
 * before the crossing's message is looked up, the misses overlap.  No
 * effect on any count. */
void temu_crossing_prefetch(const temu_session *s, const temu_tm_hop *h);

#pragma GCC visibility pop

#endif
