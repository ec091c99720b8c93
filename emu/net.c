/*
 * net.c - the model levels by name and number (temu_tm_level,
 * temu_model_of) and temu_net, a model of either level behind one handle
 * for drivers outside the library (torusemu_timing.h; emu/model.h).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

/* Every level, indexed by temu_tm_level. */
static const temu_model_ops *const levels[] = {
    [TEMU_TM_PACKET] = &temu_model_packet,
    [TEMU_TM_FLOW] = &temu_model_flow,
};

#define NLEVELS (sizeof levels / sizeof levels[0])

const char *temu_tm_level_name(uint32_t level)
{
    return level < NLEVELS ? levels[level]->name : NULL;
}

temu_status temu_tm_level_parse(const char *name, uint32_t *level, temu_error *err)
{
    for (uint32_t i = 0; name != NULL && i < NLEVELS; i++) {
        if (strcmp(name, levels[i]->name) == 0) {
            *level = i;
            return TEMU_OK;
        }
    }
    return temu_fail(err, TEMU_EINVAL, "model level '%s': expected packet or flow",
                     name != NULL ? name : "");
}

int temu_tm_session_level(const temu_session *s)
{
    uint32_t v = __atomic_load_n(&s->hdr->model_level, __ATOMIC_RELAXED);
    return v >= 1 && v <= NLEVELS ? (int)v - 1 : -1;
}

const temu_model_ops *temu_model_of(uint32_t level, temu_error *err)
{
    if (level >= NLEVELS) {
        temu_fail(err, TEMU_EINVAL, "timing model: level %u (0 packet, 1 flow)", level);
        return NULL;
    }
    return levels[level];
}

/* ------------------------------------------------------------ temu_net */

struct temu_net {
    const temu_model_ops *ops;
    void *model;
    temu_net_arrival_fn arrival; /* the driver's, for a level that */
    void *arrival_ctx;           /* delivers packet by packet       */
};

temu_status temu_net_create(const temu_machine *m, const temu_tm_config *c, temu_net **out,
                            temu_error *err)
{
    temu_status st = TEMU_OK;
    temu_net *n = NULL;
    const temu_model_ops *ops = temu_model_of(c->level, err);
    *out = NULL;
    if (ops == NULL) {
        return TEMU_EINVAL;
    }
    n = calloc(1, sizeof *n);
    if (n == NULL) {
        return temu_fail(err, TEMU_ENOMEM, "timing model: out of memory");
    }
    n->ops = ops;
    st = ops->create(m, c, &n->model, err);
    if (st != TEMU_OK) {
        free(n);
        return st;
    }
    *out = n;
    return TEMU_OK;
}

void temu_net_free(temu_net *n)
{
    if (n != NULL) {
        n->ops->destroy(n->model);
        free(n);
    }
}

const char *temu_net_level(const temu_net *n)
{
    return n->ops->name;
}

/* A packet of a level without groups of arrivals (set_done NULL). */
static void net_delivered(void *ctx, uint64_t tag, int64_t created_ps, int64_t delivered_ps)
{
    temu_net *n = ctx;
    n->arrival(n->arrival_ctx, tag, 1, created_ps, delivered_ps);
}

void temu_net_set_arrival(temu_net *n, temu_net_arrival_fn fn, void *ctx)
{
    n->arrival = fn;
    n->arrival_ctx = ctx;
    if (n->ops->set_done != NULL) {
        n->ops->set_done(n->model, fn, ctx);
    } else {
        n->ops->set_delivery(n->model, fn != NULL ? net_delivered : NULL, n);
    }
}

temu_status temu_net_send_message_dir(temu_net *n, int64_t when_ps, const temu_machine *m,
                                      const temu_message *msg, int dir, uint64_t tag,
                                      uint64_t *packets, uint64_t *bytes, temu_error *err)
{
    return n->ops->inject(n->model, when_ps, m, msg, dir, tag, packets, bytes, err);
}

int64_t temu_net_run(temu_net *n, int64_t until_ps)
{
    return n->ops->advance(n->model, until_ps);
}

int64_t temu_net_now(const temu_net *n)
{
    return n->ops->now(n->model);
}

int64_t temu_net_next_event(const temu_net *n)
{
    return n->ops->next_event(n->model);
}

temu_status temu_net_check(const temu_net *n, temu_error *err)
{
    return n->ops->check(n->model, err);
}

temu_status temu_net_stall_counters_flush(const temu_net *n, temu_tm_flushed *f, temu_session *s,
                                          temu_error *err)
{
    return n->ops->counters(n->model, f, s, err);
}
