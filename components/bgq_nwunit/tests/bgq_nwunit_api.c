/*
 * bgq_nwunit_api.c - the bgq_nwunit component through the PAPI API:
 * enumeration and names, the counter rules (4 send masks, one receive
 * mask), link attachment and ownership between event sets (checked in the
 * node's shared words too), exact counts after traffic injected through the
 * emulator API, reset, accum, several event sets, network cycles.
 *
 * Run by ctests/bgq_nwunit_api.sh with TORUSEMU_SESSION = a fresh BG/Q
 * midplane store (bgq:4x4x4x4x2, torus) and TORUSEMU_NODE=128, node
 * (1,0,0,0,0).
 *
 * Expected counts (doc/model.md; tests/test_plan.c, tests/test_inject.c):
 * messages go from node (0,0,0,0,0) to (2,0,0,0,0), two hops over the A+
 * links of nodes 0 and 1 on the deterministic channel (VC 1).  4096 bytes
 * are eager: 8 packets of 1 header + 16 payload chunks = 136 chunks, all
 * passing node 1 (sent on its A+) and arriving on its A- (8 packets).
 * 16 KiB go by rendezvous: a request-to-send (2 chunks) and 32 put packets
 * (544 chunks), 33 packets and 546 chunks; the remote get goes back
 * 2 -> 3 -> 0 and does not pass node 1.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "torus_node.h"
#include "torus_ptest.h"
#include "torusemu.h"

static temu_session *S;
static const temu_machine *M;
static int64_t N0, N1, N2;

static int64_t node_at(int a)
{
    int32_t c[5] = {a, 0, 0, 0, 0};
    return temu_router_index(M, c);
}

static void send_bytes(int64_t src, int64_t dst, uint64_t bytes, temu_kind kind)
{
    temu_message msg = {src, dst, bytes, NULL, kind};
    temu_error err;
    TP_CHECK(temu_inject(S, &msg, &err) == TEMU_OK, "inject: %s", err.message);
}

/* ------------------------------------------------------------ names */

static void test_enumeration(int cidx)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    char names[64][128];
    int nquals = 0, n;

    TP_CHECK(ci->disabled == 0, "bgq_nwunit disabled: %s", ci->disabled_reason);
    TP_EQ(ci->num_native_events, 35, "num_native_events (31 BGPM events + 4 derived)");
    TP_EQ(ci->num_cntrs, 6, "num_cntrs (6 counters per link)");
    TP_EQ(ci->kernel_multiplex, 1, "kernel_multiplex: the component multiplexes");
    n = tp_enumerate(cidx, "bgq_nwunit", names, 64, &nquals);
    TP_EQ(n, 35, "events enumerated");
    /* BGPM id order: index = id - 354 */
    TP_CHECK(strcmp(names[0], "PEVT_NW_USER_PP_SENT") == 0, "first event %s", names[0]);
    TP_CHECK(strcmp(names[9], "PEVT_NW_USER_PP_RECV") == 0, "10th event (id 363) %s", names[9]);
    TP_CHECK(strcmp(names[18], "PEVT_NW_USER_PP_RECV_FIFO") == 0, "id 372: %s", names[18]);
    TP_CHECK(strcmp(names[27], "PEVT_NW_SENT") == 0, "id 381: %s", names[27]);
    TP_CHECK(strcmp(names[30], "PEVT_NW_CYCLES") == 0, "id 384: %s", names[30]);
    /* every event lists the 18 :link choices; the 3 attribute events and
     * NW_SENT_BYTES also the default :vc mask */
    TP_EQ(nquals, 35 * 18 + 4, "qualified forms enumerated");
}

static void test_names(void)
{
    static const char *const bad[] = {
        "PEVT_NW_USER_PP_SENT:link=F+",
        "PEVT_NW_USER_PP_SENT:link=",
        "PEVT_NW_USER_PP_SENT:vc=0x70",
        "PEVT_NW_SENT:vc=0x80",
        "PEVT_NW_SENT:vc=0",
        "PEVT_NW_SENT:vc=banana",
        "PEVT_NW_SENT:link=A+:link=A-",
        "PEVT_NW_USER_PP_SENT:A+",
        "PEVT_NW_USER_PP_SENT:slice=1",
        "PEVT_NW_NOPE",
        "PEVT_NW_CYCLES:vc=0x01",
        "NW_SENT_BYTES:vc=0x100",
        "PEVT_NW_USER_PP_SENT:link=A+:",
        "PEVT_NW_USER_PP_SENT::",
    };
    char name[PAPI_HUGE_STR_LEN];
    int code;
    tp_bad_names("bgq_nwunit", bad, (int)(sizeof bad / sizeof bad[0]));
    /* canonical spelling: upper-case link names, hex masks */
    TP_RC(PAPI_event_name_to_code("PEVT_NW_RECV:vc=112:link=e-", &code), PAPI_OK);
    TP_RC(PAPI_event_code_to_name(code, name), PAPI_OK);
    TP_CHECK(strcmp(name, "PEVT_NW_RECV:link=E-:vc=0x70") == 0, "canonical %s", name);
    TP_RC(PAPI_event_name_to_code("bgq_nwunit:::PEVT_NW_CYCLES:link=TORUS", &code), PAPI_OK);
}

/* ------------------------------------------------------------ rules */

/* refused when added: the set keeps its other events */
static void add_refused(int es, const char *name, const char *why)
{
    int rc = PAPI_add_named_event(es, name);
    TP_CHECK(rc == PAPI_ECNFLCT, "%s: adding %s gave %d (%s), want PAPI_ECNFLCT", why, name, rc,
             PAPI_strerror(rc));
}

static void test_counter_rules(void)
{
    static const char *const four[] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_SYS_PP_SENT",
                                       "PEVT_NW_COMMWORLD_COL_SENT", "PEVT_NW_USER_SUBC_COL_SENT"};
    static const char *const same_masks[] = {"PEVT_NW_USER_PP_SENT:link=A+",
                                             "PEVT_NW_SENT:vc=0x70",
                                             "NW_USER_PP_SENT_BYTES",
                                             "PEVT_NW_USER_PP_RECV",
                                             "PEVT_NW_USER_PP_RECV_FIFO",
                                             "PEVT_NW_RECV:vc=0x70",
                                             "PEVT_NW_CYCLES"};
    int es = tp_make_set(four, 4), es2;
    long long v[7];

    /* counters 0-3: a fifth send mask has no counter */
    add_refused(es, "PEVT_NW_USER_DYN_PP_SENT", "5th send mask");
    add_refused(es, "PEVT_NW_SENT:vc=0x03", "5th send mask (attribute event)");
    TP_RC(PAPI_add_named_event(es, "PEVT_NW_SENT:vc=0x08"), PAPI_OK); /* mask 0x08 is there */
    TP_RC(PAPI_add_named_event(es, "NW_ALL_VC_SENT"), PAPI_OK);       /* its four masks too */
    TP_RC(PAPI_add_named_event(es, "PEVT_NW_USER_PP_RECV"), PAPI_OK);
    /* counters 4 and 5 share one mask */
    add_refused(es, "PEVT_NW_SYS_PP_RECV", "second receive mask");
    add_refused(es, "PEVT_NW_USER_ESC_PP_RECV_FIFO", "FIFO mask differs from receive mask");
    add_refused(es, "PEVT_NW_RECV_FIFO", "attribute FIFO event, default mask 0x7f");
    TP_RC(PAPI_add_named_event(es, "PEVT_NW_USER_PP_RECV_FIFO"), PAPI_OK);
    TP_EQ(PAPI_num_events(es), 8, "events in the set after the refusals");
    TP_RC(PAPI_start(es), PAPI_OK);
    TP_RC(PAPI_stop(es, NULL), PAPI_OK);
    tp_free_set(es);

    /* a derived event takes counters like its base events */
    es = PAPI_NULL;
    TP_RC(PAPI_create_eventset(&es), PAPI_OK);
    TP_RC(PAPI_add_named_event(es, "NW_ALL_VC_SENT"), PAPI_OK);
    add_refused(es, "PEVT_NW_USER_ESC_PP_SENT", "send counters taken by NW_ALL_VC_SENT");
    tp_free_set(es);

    /* many events on few counters: same masks, other links */
    es2 = tp_make_set(same_masks, 7);
    TP_RC(PAPI_start(es2), PAPI_OK);
    TP_RC(PAPI_stop(es2, v), PAPI_OK);
    tp_free_set(es2);
}

/* ------------------------------------------------------------ counts */

static const char *const ev1[] = {
    "PEVT_NW_USER_PP_SENT",         "PEVT_NW_USER_ESC_PP_SENT:link=A+",
    "PEVT_NW_USER_PP_RECV",         "PEVT_NW_USER_PP_RECV_FIFO:link=A-",
    "NW_USER_PP_SENT_BYTES:link=A", "PEVT_NW_CYCLES",
};
#define NEV1 6
static const char *const ev2[] = {
    "PEVT_NW_SENT:vc=0x20",     "PEVT_NW_USER_ESC_PP_SENT:link=A-",
    "PEVT_NW_USER_DYN_PP_SENT", "PEVT_NW_RECV:vc=0x20:link=A-",
    "PEVT_NW_SENT:link=IO",     "NW_SENT_BYTES:link=TORUS",
};
#define NEV2 6

static void test_counts(void)
{
    static const long long want1[] = {136, 136, 8, 0, 32 * 136, -1};
    static const long long want2[] = {136 + 546, 0, 0, 8 + 33, 0, 32 * (136 + 546)};
    long long v[NEV1], w[NEV2], acc[NEV2] = {0};
    int es1 = tp_make_set(ev1, NEV1), es2 = tp_make_set(ev2, NEV2);

    TP_RC(PAPI_start(es1), PAPI_OK);
    send_bytes(N0, N2, 4096, TEMU_KIND_P2P);
    TP_RC(PAPI_read(es1, v), PAPI_OK);
    v[5] = -1; /* cycles: checked in test_cycles */
    tp_expect("4096-byte eager message through node 1", ev1, v, want1, NEV1);
    TP_RC(PAPI_stop(es1, v), PAPI_OK);
    send_bytes(N0, N2, 4096, TEMU_KIND_P2P);
    TP_RC(PAPI_read(es1, v), PAPI_OK);
    TP_EQ(v[0], 136, "stopped set does not count");

    /* es1 is stopped but still attached (send masks 0x70 and 0x20, receive
     * mask 0x70); es2 needs send masks 0x40 and 0x7f and receive mask 0x20,
     * which es1 did not program, so es2 cannot attach while es1 exists */
    TP_RC(PAPI_start(es2), PAPI_ECNFLCT);
    tp_free_set(es1);
    TP_RC(PAPI_start(es2), PAPI_OK);
    send_bytes(N0, N2, 4096, TEMU_KIND_P2P);
    send_bytes(N0, N2, 16384, TEMU_KIND_P2P);
    TP_RC(PAPI_read(es2, w), PAPI_OK);
    tp_expect("4096 B eager + 16 KiB rendezvous", ev2, w, want2, NEV2);

    /* reset zeroes this set's view; accum adds and zeroes */
    TP_RC(PAPI_reset(es2), PAPI_OK);
    TP_RC(PAPI_read(es2, w), PAPI_OK);
    TP_EQ(w[0] + w[3] + w[5], 0, "after reset");
    send_bytes(N0, N2, 100, TEMU_KIND_P2P); /* 1 packet: 1 + 4 chunks */
    TP_RC(PAPI_accum(es2, acc), PAPI_OK);
    TP_EQ(acc[0], 5, "accum: chunks of a 100-byte message");
    TP_EQ(acc[3], 1, "accum: its packet");
    send_bytes(N0, N2, 100, TEMU_KIND_P2P);
    TP_RC(PAPI_accum(es2, acc), PAPI_OK);
    TP_EQ(acc[0], 10, "accum adds");
    TP_RC(PAPI_stop(es2, w), PAPI_OK);
    TP_EQ(w[0], 0, "read after accum");
    tp_free_set(es2);
}

/* collective traffic: world on VC 4, sub-communicators on VC 5 */
static void test_collectives(void)
{
    static const char *const ev[] = {"PEVT_NW_COMMWORLD_COL_SENT", "PEVT_NW_USER_WORLD_COL_SENT",
                                     "PEVT_NW_USER_SUBC_COL_SENT", "NW_COL_SENT_BYTES",
                                     "PEVT_NW_USER_PP_SENT"};
    /* 100 B: one packet of 1 + 4 chunks; 8192 B: 16 packets of 17 */
    static const long long want[] = {5, 5, 272, 32 * (5 + 272), 0};
    long long v[5];
    int es = tp_make_set(ev, 5);
    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(N0, N2, 100, TEMU_KIND_COLL_WORLD);
    send_bytes(N0, N2, 8192, TEMU_KIND_COLL_SUB);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    tp_expect("collectives through node 1", ev, v, want, 5);
    tp_free_set(es);
}

/* ----------------------------------------------------- link ownership */

/* Node-word views of link l of node 1 (torus_node.h): its holders (bit =
 * process slot), its configuration, its controlling process. */
static uint64_t link_held(int l)
{
    return torus_node_holders(temu_node_words(S, N1), TORUS_RES_BGQ_NW + l);
}

static uint64_t link_value(int l)
{
    return torus_node_value(temu_node_words(S, N1), TORUS_RES_BGQ_NW + l);
}

static int32_t link_owner(int l)
{
    return torus_node_owner_pid(temu_node_words(S, N1), TORUS_RES_BGQ_NW + l);
}

static int32_t slot_pid(int s)
{
    return torus_node_slot_pid(temu_node_words(S, N1), s);
}

static void test_ownership(void)
{
    static const char *const ctl_ev[] = {"PEVT_NW_USER_PP_SENT", "PEVT_NW_SYS_PP_SENT",
                                         "PEVT_NW_USER_PP_RECV"};
    static const char *const reader_ev[] = {"PEVT_NW_USER_PP_SENT:link=A+",
                                            "PEVT_NW_USER_PP_RECV_FIFO"};
    static const char *const other_ev[] = {"PEVT_NW_USER_DYN_PP_SENT"};
    static const char *const other_link[] = {"PEVT_NW_SYS_COL_SENT:link=E+"};
    long long v[3];
    int a, r, o, e, held = 0;
    uint64_t word;

    for (int l = 0; l < 11; l++) {
        held += link_held(l) != 0;
    }
    TP_EQ(held, 0, "links of node 1 free before the test");
    /* the first set to start attaches the links it reads (all 11 here) and
     * controls them: its process is the owner, its masks the value */
    a = tp_make_set(ctl_ev, 3);
    TP_EQ(link_held(5), 0, "adding events attaches nothing");
    TP_RC(PAPI_start(a), PAPI_OK);
    word = link_value(1);
    TP_CHECK(link_held(1) != 0, "A+ held after start");
    TP_EQ(link_owner(1), getpid(), "controller of A+ is this process");
    /* value: send masks 0x70, 0x08, receive mask 0x70 */
    TP_EQ(word, (0x70ull << 32) | (0x70ull << 24) | (0x08ull << 16), "A+ configuration");
    held = 0;
    for (int l = 0; l < 11; l++) {
        held += link_value(l) == word && link_held(l) == link_held(1);
    }
    TP_EQ(held, 11, "all 11 links attached by default");
    TP_RC(PAPI_stop(a, v), PAPI_OK);

    /* a set whose masks are programmed there may attach and read; it counts
     * from its own start */
    r = tp_make_set(reader_ev, 2);
    TP_RC(PAPI_start(r), PAPI_OK);
    send_bytes(N0, N2, 4096, TEMU_KIND_P2P);
    TP_RC(PAPI_stop(r, v), PAPI_OK);
    TP_EQ(v[0], 136, "reader set counts its own traffic");
    /* another mask on those links is refused at start, on any link */
    o = tp_make_set(other_ev, 1);
    TP_RC(PAPI_start(o), PAPI_ECNFLCT);
    e = tp_make_set(other_link, 1);
    TP_RC(PAPI_start(e), PAPI_ECNFLCT);
    /* the controller goes: the reader keeps the links as they are
     * programmed, so the other masks are still refused */
    tp_free_set(a);
    TP_EQ(link_value(1), (0x70ull << 32) | (0x70ull << 24) | (0x08ull << 16),
          "A+ keeps its configuration while the reader holds it");
    TP_RC(PAPI_start(o), PAPI_ECNFLCT);
    /* the reader holds only what it read: A+ and, for the FIFO event, all
     * 11 links; gone too, every link is free and the others may start */
    tp_free_set(r);
    held = 0;
    for (int l = 0; l < 11; l++) {
        held += link_held(l) != 0;
    }
    TP_EQ(held, 0, "links free once every set is cleaned up");
    held = 0;
    for (int s = 0; s < TORUS_NODE_PROCS; s++) {
        held += slot_pid(s) != 0;
    }
    TP_EQ(held, 0, "process slot given back");
    TP_RC(PAPI_start(e), PAPI_OK);
    TP_EQ(link_value(9), 0x01ull << 24, "E+ programmed with the new set's mask");
    TP_EQ(link_held(1), 0, "the set on E+ leaves A+ free");
    TP_RC(PAPI_start(o), PAPI_EISRUN); /* one running set per thread */
    TP_RC(PAPI_stop(e, NULL), PAPI_OK);
    TP_RC(PAPI_start(o), PAPI_ECNFLCT); /* E+ is e's, with mask 0x01 only ... */
    tp_free_set(e);
    TP_RC(PAPI_start(o), PAPI_OK); /* ... until e is cleaned up */
    TP_RC(PAPI_stop(o, NULL), PAPI_OK);
    tp_free_set(o);
}

/* --------------------------------------------------------- cycles */

static void test_cycles(void)
{
    static const char *const ev[] = {"PEVT_NW_CYCLES", "PEVT_NW_CYCLES:link=A+"};
    struct timespec pause = {0, 20 * 1000 * 1000}, t0, t1;
    long long v[2], again[2];
    double elapsed;
    int es = tp_make_set(ev, 2);

    clock_gettime(CLOCK_MONOTONIC, &t0);
    TP_RC(PAPI_start(es), PAPI_OK);
    nanosleep(&pause, NULL);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    elapsed = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    /* 500 MHz: at least 10 million cycles in 20 ms, at most the elapsed ns / 2 */
    TP_CHECK(v[0] >= 10000000 && (double)v[0] <= elapsed / 2 + 1, "cycles %lld in %.0f ns", v[0],
             elapsed);
    TP_CHECK(v[1] >= 10000000 && (double)v[1] <= elapsed / 2 + 1, "one link: %lld", v[1]);
    nanosleep(&pause, NULL);
    TP_RC(PAPI_read(es, again), PAPI_OK);
    TP_EQ(again[0], v[0], "cycles frozen after stop");
    TP_RC(PAPI_start(es), PAPI_OK);
    TP_RC(PAPI_reset(es), PAPI_OK);
    TP_RC(PAPI_read(es, again), PAPI_OK);
    TP_CHECK(again[0] >= 0 && again[0] < 5000000, "cycles after reset %lld", again[0]);
    TP_RC(PAPI_stop(es, NULL), PAPI_OK);
    tp_free_set(es);
}

/* Threads: sets with the same masks in two threads both attach the links
 * and count; a third thread's set with another mask is refused meanwhile. */
static pthread_barrier_t barrier;
static long long thread_count[2] = {-1, -1};
static int third_rc;

static void *reader(void *arg)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT:link=A+"};
    int i = (int)(intptr_t)arg, es = tp_make_set(ev, 1);
    TP_RC(PAPI_start(es), PAPI_OK);
    pthread_barrier_wait(&barrier); /* both started */
    pthread_barrier_wait(&barrier); /* traffic injected, third set tried */
    TP_RC(PAPI_stop(es, &thread_count[i]), PAPI_OK);
    tp_free_set(es);
    PAPI_unregister_thread();
    return NULL;
}

static void *other(void *arg)
{
    static const char *const ev[] = {"PEVT_NW_SYS_PP_SENT:link=A+"};
    int es = tp_make_set(ev, 1);
    (void)arg;
    third_rc = PAPI_start(es);
    tp_free_set(es);
    PAPI_unregister_thread();
    return NULL;
}

static unsigned long self_id(void)
{
    return (unsigned long)pthread_self();
}

static void test_threads(void)
{
    pthread_t t[3];
    TP_RC(PAPI_thread_init(self_id), PAPI_OK);
    pthread_barrier_init(&barrier, NULL, 3);
    for (int i = 0; i < 2; i++) {
        pthread_create(&t[i], NULL, reader, (void *)(intptr_t)i);
    }
    pthread_barrier_wait(&barrier);
    send_bytes(N0, N2, 4096, TEMU_KIND_P2P);
    pthread_create(&t[2], NULL, other, NULL);
    pthread_join(t[2], NULL);
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
    }
    pthread_barrier_destroy(&barrier);
    TP_EQ(thread_count[0], 136, "first thread's set");
    TP_EQ(thread_count[1], 136, "second thread's set");
    TP_EQ(third_rc, PAPI_ECNFLCT, "third thread, other mask on A+");
    TP_EQ(link_held(1), 0, "A+ free after the threads");
}

/* The MPI layer sets the identity at MPI_Init: a set started after it reads
 * the new node (here node 0, which sends the data and gets the remote get). */
static void test_identity(void)
{
    static const char *const ev[] = {"PEVT_NW_USER_PP_SENT:link=A+",
                                     "PEVT_NW_USER_PP_RECV:link=A-"};
    static const long long want[] = {546, 1};
    long long v[2];
    int es = tp_make_set(ev, 2);
    temu_identity_set(M, 0, N0, 0);
    TP_RC(PAPI_start(es), PAPI_OK);
    send_bytes(N0, N2, 16384, TEMU_KIND_P2P);
    TP_RC(PAPI_stop(es, v), PAPI_OK);
    tp_expect("node 0 after MPI_Init-style identity", ev, v, want, 2);
    TP_CHECK(torus_node_holders(temu_node_words(S, N0), TORUS_RES_BGQ_NW + 1) != 0,
             "node 0's A+ attached");
    tp_free_set(es);
}

int main(int argc, char **argv)
{
    int cidx;
    S = tp_begin(&argc, argv, "bgq:4x4x4x4x2", 128);
    if (S == NULL) {
        return tp_finish();
    }
    M = temu_session_machine(S);
    N0 = node_at(0);
    N1 = node_at(1);
    N2 = node_at(2);
    TP_RC(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    cidx = tp_component("bgq_nwunit");
    if (cidx >= 0) {
        test_enumeration(cidx);
        test_names();
        test_counter_rules();
        test_counts();
        test_collectives();
        test_ownership();
        test_cycles();
        test_threads();
        test_identity();
    }
    PAPI_shutdown();
    temu_session_close(S);
    return tp_finish();
}
