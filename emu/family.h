/*
 * family.h - one descriptor per machine family, private to libtorusemu.
 *
 * Everything the model knows of a family of machines - Cray Gemini, IBM
 * Blue Gene/P, IBM Blue Gene/Q - sits in one const struct temu_family:
 * its constants (link names, packet format, clocks, link and tile rates,
 * virtual channels, buffer sizes, the timing model's figures) and its
 * functions (routing order, node names, packetization, where counts land
 * in the store, how its store is laid out).  The rest of the library, the
 * MPI layer, the tools and the components read the descriptor of their
 * machine instead of testing which system it is, as libpfm4 keeps each PMU
 * in one pfmlib_pmu_t.  The public part (temu_family_info, torusemu.h) is
 * the descriptor's first member: temu_family_info_get() hands it out.
 *
 * Files: family.c (the lookup, what families share: Blue Gene location
 * names, the public accessors), family_gemini.c, family_bgp.c,
 * family_bgq.c (one descriptor each).  Shared machinery stays where it
 * was: plan.c packetizes Gemini transactions; plan_bluegene.h makes the
 * Blue Gene packets, message-unit and L2 counts of a family's packet
 * format (each Blue Gene family instantiates it with its format as
 * constants); inject.c places a plan's counts along the routes (its
 * APPLY_OPS copies are the descriptors' `apply`); gemini.c holds the Gemini
 * chip (tile map, media, interconnect file).
 *
 * Adding a fourth family (say a Cray Aries dragonfly, or a Tofu torus):
 *   1. a value of temu_system (torusemu.h) and its slot in temu_families[]
 *      (family.c);
 *   2. emu/family_NAME.c with one `const temu_family temu_family_NAME`:
 *      the public info (names, base machine, link names, spec options,
 *      units, clocks, rates), the timing model's figures (`timing`,
 *      `lanes`, `link_lane_gbs`), and its functions: a packetizer (`plan`;
 *      a Blue Gene-like torus instantiates temu_plan_bluegene with its own
 *      temu_bg_format), counter placement (`apply`: APPLY_OPS(NAME) in
 *      inject.c over an apply_NAME; `layout`, `sections`,
 *      `describe_counter`, `read_link`, `stall_counters`), names
 *      (`name_node`, `name_router`, `describe`) and, if its routing order
 *      is not X, Y, Z..., `order_dims`;
 *   3. its tables: the counter enums and sizes (torusemu.h, like
 *      temu_bgq_counter) and its temu_idx_* functions, a section of
 *      temu_layout, the PAPI event tables of its components
 *      (components/NAME/NAME.events) and its presets (machine.c);
 *   4. emu/family_NAME.c in libtorusemu_la_SOURCES (Makefile.am) and a
 *      row in tests/test_family.c.
 * The volume model, the store, replay, the MPI layer, the tools and the
 * components test no system (but where a stored system is compared with
 * the one expected): what they need to know of a family they read here.
 */
#ifndef TEMU_FAMILY_H
#define TEMU_FAMILY_H

#ifndef TEMU_BUILDING_LIBRARY
#error "family.h is private to libtorusemu"
#endif

#include "torusemu.h"
#include "torusemu_timing.h"

struct temu_layout;
struct temu_memo_entry;

/* Not exported from the shared library: the descriptors are reached through
 * temu_family_info_get, and hidden symbols are addressed directly (no GOT
 * load on the counter-index and injection paths). */
#define TEMU_FAMILY_HIDDEN __attribute__((visibility("hidden")))

/* Blue Gene packets and virtual channels (plan_bluegene.h).  A
 * packet is `header` bytes of header and up to max_packet - header of
 * payload, in chunks of `chunk` bytes; a message of b bytes is max(1,
 * ceil(b / payload)) packets, all full but the last. */
typedef struct temu_bg_format {
    uint32_t header;       /* bytes of header per packet                        */
    uint32_t max_packet;   /* bytes of the largest packet, header included       */
    uint32_t chunk;        /* bytes of a chunk                                   */
    uint32_t rget;         /* payload of a remote-get packet (its descriptor)    */
    int32_t vc_det;        /* the deterministic (bubble, escape) VC              */
    int32_t vc_dynamic;    /* the VC of bulk data when it is routed dynamically  */
    int32_t vc_coll_world; /* collective traffic on MPI_COMM_WORLD             */
    int32_t vc_coll_sub;   /* on a sub-communicator                            */
    /* bulk data (rendezvous and RMA) is labelled dynamic from dynamic_from
     * bytes on between nodes that differ in at least dynamic_dims
     * dimensions, else deterministic */
    uint64_t dynamic_from;
    int32_t dynamic_dims;
    /* 1: an all-to-all block (TEMU_KIND_ALLTOALL) goes as memory-FIFO
     * packets with no rendezvous, on vc_dynamic unless the machine's
     * protocol.m2m_deterministic puts it on vc_det (BG/Q, PAMI's
     * many-to-many protocol); 0: as a point-to-point message */
    int32_t m2m;
} temu_bg_format;

/* A plan's counts applied along its routes (inject.c): into the store with
 * no watch armed, into the store with watches (each update tested), or
 * recorded into a memo entry without touching the store. */
typedef struct temu_apply_ops {
    void (*store)(temu_session *s, const temu_message *msg, const temu_plan *p);
    void (*watched)(temu_session *s, const temu_message *msg, const temu_plan *p);
    void (*record)(temu_session *s, struct temu_memo_entry *e, const temu_message *msg,
                   const temu_plan *p);
} temu_apply_ops;

/* Sections of a family's counter store (temu_layout). */
enum {
    TEMU_SECTION_GEMINI_TILES = 1u << 0,
    TEMU_SECTION_GEMINI_NIC = 1u << 1,
    TEMU_SECTION_BGP_TORUS = 1u << 2,
    TEMU_SECTION_BGQ_NW = 1u << 3,
    TEMU_SECTION_BGQ_MU = 1u << 4,
    TEMU_SECTION_BGQ_L2 = 1u << 5,
    TEMU_SECTION_BGQ_CNK = 1u << 6,      /* node and hardware-thread counters */
    TEMU_SECTION_BGQ_NW_CYCLES = 1u << 7 /* virtual network cycles            */
};

typedef struct temu_family temu_family;

struct temu_family {
    temu_family_info info; /* first: temu_family_info_get returns it */

    /* ---- machine description (machine.c) */
    /* set m->dim_order, the deterministic routing order; NULL: 0, 1, 2 ... */
    void (*order_dims)(temu_machine *m);
    int (*name_node)(const temu_machine *m, int64_t node, char *buf, size_t len);
    int (*name_router)(const temu_machine *m, int64_t router, char *buf, size_t len);
    /* the lines of `torusemu machine` after "routing" */
    void (*describe)(const temu_machine *m, FILE *f);
    /* Blue Gene location names: the midplane's shape (nodes per dimension) */
    const int32_t *midplane;

    /* ---- packetization: fill plan (zeroed, src != dst); Gemini
     * temu_plan_gemini (plan.c), Blue Gene temu_plan_bluegene
     * (plan_bluegene.h) with the family's temu_bg_format */
    void (*plan)(const temu_family *f, const temu_machine *m, const temu_message *msg,
                 temu_plan *plan);
    /* 1: an all-to-all block (TEMU_KIND_ALLTOALL) needs no handshake, its
     * data leaves at once as memory-FIFO packets (BG/Q's many-to-many
     * protocol, temu_bg_format.m2m); 0: it follows the point-to-point
     * protocol (vtime_rules.c, temu_vt_eager) */
    int32_t alltoall_fifo;

    /* ---- counter placement (store.c, inject.c) */
    uint32_t sections; /* TEMU_SECTION_* bits */
    /* set the section bases of out (all -1 before) and out->total */
    void (*layout)(const temu_machine *m, struct temu_layout *out);
    const temu_apply_ops *apply;
    /* name of counter idx (0 <= idx < l->total) */
    int (*describe_counter)(const temu_machine *m, const struct temu_layout *l, int64_t idx,
                            char *buf, size_t len);
    /* temu_link_read: one link's traffic or stall counters */
    uint64_t (*read_link)(const temu_session *s, int64_t router, int link, temu_link_measure what);
    /* temu_stall_counters */
    int64_t (*stall_counters)(const temu_machine *m, int64_t *idx);

    /* ---- timing model (torusemu_timing.h) */
    /* temu_tm_config_default's figures (doc/model.md, "Timing model") */
    temu_tm_config timing;
    /* lanes of torus link `link`; NULL: one */
    int (*lanes)(int link);
    /* GB/s of a lane of the link leaving router through link; NULL:
     * info.lane_gbs everywhere */
    double (*link_lane_gbs)(const temu_machine *m, int64_t router, int link);
};

extern TEMU_FAMILY_HIDDEN const temu_family temu_family_gemini;
extern TEMU_FAMILY_HIDDEN const temu_family temu_family_bgp;
extern TEMU_FAMILY_HIDDEN const temu_family temu_family_bgq;

/* Descriptors by temu_system; [0] is NULL, the others never are. */
#define TEMU_FAMILIES 3
extern TEMU_FAMILY_HIDDEN const temu_family *const temu_families[TEMU_FAMILIES + 1];

/* The descriptor of `system`, NULL when there is none. */
static inline const temu_family *temu_family_of(int32_t system)
{
    return (uint32_t)system - 1u < TEMU_FAMILIES ? temu_families[system] : NULL;
}

/* 1 when the store of a machine of `system` has the sections `section`
 * (TEMU_SECTION_*): the counter-index functions' check, one table load. */
static inline int temu_family_has(int32_t system, uint32_t section)
{
    return (uint32_t)system - 1u < TEMU_FAMILIES &&
           (temu_families[system]->sections & section) == section;
}

/* The family of a machine (every parsed or checked machine has one). */
static inline const temu_family *temu_machine_family(const temu_machine *m)
{
    return temu_family_of(m->system);
}

/* GB/s of a lane of the link leaving router through link (0 <= link <
 * nlinks): the family's rule, shared by temu_link_lane_gbs and the packet
 * model (inline: the live run asks it per hop of a message). */
static inline double temu_family_lane_gbs(const temu_family *f, const temu_machine *m,
                                          int64_t router, int link)
{
    return f->link_lane_gbs != NULL ? f->link_lane_gbs(m, router, link) : f->info.lane_gbs;
}

/* The descriptor whose info.name is the `len` characters at name, or NULL. */
TEMU_FAMILY_HIDDEN const temu_family *temu_family_by_name(const char *name, size_t len);

/* What the families share (family.c). */
/* Blue Gene location string of a node (every node is its own router), from
 * the family's midplane shape. */
TEMU_FAMILY_HIDDEN int temu_bluegene_location(const temu_machine *m, int64_t node, char *buf,
                                              size_t len);

/* The Gemini packetizer (plan.c). */
TEMU_FAMILY_HIDDEN void temu_plan_gemini(const temu_family *f, const temu_machine *m,
                                         const temu_message *msg, temu_plan *plan);

/* Counter placement of each family (inject.c). */
extern TEMU_FAMILY_HIDDEN const temu_apply_ops temu_apply_gemini;
extern TEMU_FAMILY_HIDDEN const temu_apply_ops temu_apply_bgp;
extern TEMU_FAMILY_HIDDEN const temu_apply_ops temu_apply_bgq;

#endif /* TEMU_FAMILY_H */
