/*
 * vt_model.h - the modelled arrival time of one message in an otherwise
 * empty network, for live runs in virtual time (doc/virtual-time.md).
 *
 * Pure: a function of the machine, the timing model's parameters
 * (temu_tm_config, torusemu_timing.h) and the message.  Private to the
 * papi-torus MPI layer and its tests.
 */
#ifndef TMPI_VT_MODEL_H
#define TMPI_VT_MODEL_H

#include "torusemu.h"
#include "torusemu_timing.h"

#pragma GCC visibility push(hidden)

/*
 * *ps = the time from the send until the last packet of msg (either
 * direction: data, and the replies its protocol sends back) has reached its
 * node, when nothing else is in the network: the packets the volume model
 * plans (temu_plan_message), cut as the timing model's bridge cuts them,
 * pass injection, every hop of the route and ejection, each channel
 * serializing one packet at a time, with the timing model's rules for
 * router delay, wire time and cut-through (header router_ps after its
 * arrival, never before its tail - the next serialization).  Credits are
 * not consulted: an empty network never runs out of them on these paths
 * (checked against the timing model in tests/mpi/test_vt_model.c).
 * 0 for a message that stays in its node.
 */
temu_status tmpi_vt_latency(const temu_machine *m, const temu_tm_config *c, const temu_message *msg,
                            int64_t *ps, temu_error *err);

#pragma GCC visibility pop

#endif
