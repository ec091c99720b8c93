/*
 * torusemu.h - public interface of the papi-torus emulated machine.
 *
 * The emulator turns "rank s sends b bytes to rank d" into the counter
 * increments a Cray Gemini (XE/XK), IBM Blue Gene/P or Blue Gene/Q network
 * would have recorded, and keeps them in a shared counter store that any
 * process can attach to.
 *
 * Layers (see doc/architecture.md):
 *   machine description  -> temu_machine_parse(), presets
 *   rank-to-node mapping -> temu_mapping_*()
 *   routing              -> temu_route()            (pure)
 *   packetization        -> temu_plan_message()     (pure)
 *   counter store        -> temu_session_*(), temu_counter_*()
 *
 * Every function that can fail returns a temu_status and, when given a
 * non-NULL temu_error, writes a human-readable reason into it.
 */
#ifndef TORUSEMU_H
#define TORUSEMU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of papi-torus (configure.ac reads it from here).  Compare
 * TEMU_VERSION_NUMBER against TEMU_VERSION_ENCODE(0, 1, 0) in #if. */
#define TEMU_VERSION_MAJOR 0
#define TEMU_VERSION_MINOR 1
#define TEMU_VERSION_PATCH 0
#define TEMU_VERSION "0.1.0"
#define TEMU_VERSION_ENCODE(major, minor, patch) ((major) * 10000 + (minor) * 100 + (patch))
#define TEMU_VERSION_NUMBER                                                                        \
    TEMU_VERSION_ENCODE(TEMU_VERSION_MAJOR, TEMU_VERSION_MINOR, TEMU_VERSION_PATCH)

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum temu_status {
    TEMU_OK = 0,
    TEMU_EINVAL = -1,    /* malformed input: spec, map file, argument      */
    TEMU_ERANGE = -2,    /* value outside the machine (node, rank, link)   */
    TEMU_ENOMEM = -3,    /* allocation failed                              */
    TEMU_EIO = -4,       /* file or shared-memory operation failed         */
    TEMU_EVERSION = -5,  /* store of another ABI version                   */
    TEMU_ECORRUPT = -6,  /* store truncated or header inconsistent         */
    TEMU_ENOSESSION = -7 /* no session configured                         */
} temu_status;

typedef struct temu_error {
    temu_status status;
    char message[512];
} temu_error;

/* Short name of a status code ("invalid input", ...). */
const char *temu_status_name(temu_status status);

/* Record a failure: when err is not NULL, its status and the reason
 * formatted from fmt; returns status.  The library's own functions report
 * through it, and so may code built on the library (the workload
 * generators of `torusemu replay`). */
temu_status temu_fail(temu_error *err, temu_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------------ */
/* Machine description                                                      */
/* ------------------------------------------------------------------------ */

typedef enum temu_system {
    TEMU_SYSTEM_GEMINI = 1, /* Cray XE/XK, 3-D torus of Gemini routers */
    TEMU_SYSTEM_BGP = 2,    /* IBM Blue Gene/P, 3-D torus of nodes     */
    TEMU_SYSTEM_BGQ = 3     /* IBM Blue Gene/Q, 5-D torus of nodes     */
} temu_system;

#define TEMU_MAX_DIMS 5
#define TEMU_NAME_MAX 64

/*
 * Protocol thresholds, all in bytes of MPI payload.  Defaults are documented
 * in doc/model.md with their sources; every one can be set in the machine spec
 * ("gemini:4x4x4,eager=8192").
 */
typedef struct temu_protocol {
    uint32_t mpi_header;    /* Gemini: MPI envelope carried in the first PUT (48) */
    uint32_t eager_limit;   /* messages below this size go eager              */
    uint32_t bte_threshold; /* Gemini: at or above, PUT by the block-transfer engine */
    /* BG/Q: 1 routes the blocks of an all-to-all (TEMU_KIND_ALLTOALL)
     * deterministically, as PAMI_M2M_ROUTING=DETERMINISTIC did; 0 (the
     * default) dynamically, as PAMI's many-to-many protocol did otherwise
     * (doc/model.md, "All-to-all on BG/Q"); spec option m2m-routing= */
    uint32_t m2m_deterministic;
} temu_protocol;

/*
 * A machine: a torus (or partial mesh) of routers.  On Gemini a router serves
 * two nodes; on Blue Gene every node is its own router.  Plain data, stored
 * verbatim in the counter store header, so it has a fixed layout.
 */
typedef struct temu_machine {
    int32_t system;                   /* temu_system                                 */
    int32_t ndims;                    /* 3 (Gemini, BG/P) or 5 (BG/Q)                */
    int32_t size[TEMU_MAX_DIMS];      /* routers along each dimension                */
    int32_t torus[TEMU_MAX_DIMS];     /* 1 = wrap-around links, 0 = mesh             */
    int32_t dim_order[TEMU_MAX_DIMS]; /* deterministic routing order (dimension ids) */
    int32_t nodes_per_router;         /* 2 on Gemini, 1 on Blue Gene                 */
    int32_t cores_per_node;           /* BG/P 4, BG/Q 16, Gemini 16 by default       */
    int32_t threads_per_core;         /* BG/Q 4, others 1                            */
    int32_t nlinks;                   /* outgoing links per router incl. host/IO     */
    int64_t nrouters;
    int64_t nnodes;
    temu_protocol protocol;
    char name[TEMU_NAME_MAX];   /* canonical spec ("bgq:4x4x4x4x2")            */
    char preset[TEMU_NAME_MAX]; /* preset it came from, or ""                  */
} temu_machine;

/*
 * Parse a machine spec.  Accepted forms:
 *   gemini:XxYxZ            Gemini routers (2 nodes each)
 *   bgp:XxYxZ               Blue Gene/P nodes
 *   bgq:AxBxCxDxE           Blue Gene/Q nodes
 *   SYSTEM:PRESET, PRESET   a named shape (temu_machine_list_presets)
 * followed by optional ",key=value" options:
 *   torus=10111   wrap flag per dimension (default all 1; BG/Q and BG/P)
 *   cores=N       cores per node
 *   eager=B, bte=B, header=B   protocol thresholds (bytes)
 *   m2m-routing=dynamic|deterministic   BG/Q all-to-all routing
 */
temu_status temu_machine_parse(const char *spec, temu_machine *out, temu_error *err);

/* Print one line per preset ("name  spec  description") to f. */
void temu_machine_list_presets(FILE *f);

/* Human-readable description of the machine (several lines). */
void temu_machine_describe(const temu_machine *m, FILE *f);

const char *temu_system_name(int32_t system); /* "gemini", "bgp", "bgq" */

/* Router <-> coordinates.  Linear index: last dimension varies fastest. */
int64_t temu_router_index(const temu_machine *m, const int32_t *coord);
void temu_router_coords(const temu_machine *m, int64_t router, int32_t *coord);

static inline int64_t temu_node_router(const temu_machine *m, int64_t node)
{
    return node / m->nodes_per_router;
}

/*
 * Link numbering, identical on every system for torus links:
 *   link = 2*dim + 0  -> minus direction of dimension dim
 *   link = 2*dim + 1  -> plus direction
 * and link 2*ndims is the extra port: the Gemini host link (the NICs of the
 * two local nodes) or the Blue Gene/Q I/O link.  BG/P has no extra port in
 * the model.  This is BG/Q's UPC_NW numbering (0=A-, 1=A+, ..., 9=E+, 10=IO).
 */
#define TEMU_LINK_MINUS(dim) (2 * (dim))
#define TEMU_LINK_PLUS(dim) (2 * (dim) + 1)
#define TEMU_MAX_LINKS (2 * TEMU_MAX_DIMS + 1)

/* "X+", "A-", "IO", "HH" ... */
const char *temu_link_name(const temu_machine *m, int link);
/* Parse a link name of this machine; -1 if unknown. */
int temu_link_parse(const temu_machine *m, const char *name);
/* Router reached through a torus link, or -1 for a mesh edge / extra port. */
int64_t temu_link_neighbor(const temu_machine *m, int64_t router, int link);

/* Name of a node as the machine printed it: a Cray cname, a BG/Q or BG/P
 * location string.  Returns the number of characters written. */
int temu_node_name(const temu_machine *m, int64_t node, char *buf, size_t len);
/* Name of a router (Cray Gemini cname "c0-0c0s0g0", or the node name). */
int temu_router_name(const temu_machine *m, int64_t router, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Machine families                                                          */
/* ------------------------------------------------------------------------ */

/*
 * What the model knows of each family of machines (Gemini, BG/P, BG/Q), as
 * data: one read-only descriptor per family, kept in the library beside the
 * family's functions (emu/family.h explains how to add a family).  Tools,
 * the MPI layer and the components ask the descriptor of their machine
 * (temu_family_info_get(m->system)) what they need, rather than testing
 * which system it is.
 */

/* What the counts of a message read of its payload (temu_message.payload). */
typedef enum temu_payload_use {
    TEMU_PAYLOAD_UNUSED = 0,  /* nothing: pass NULL (BG/P) */
    TEMU_PAYLOAD_ADDRESS = 1, /* the address only: the L2 slice of each line (BG/Q) */
    TEMU_PAYLOAD_BYTES = 2    /* the bytes: runs of 0 or 1 bits compress (Gemini) */
} temu_payload_use;

/* The network the machine's MPI ran collectives on besides the torus. */
typedef enum temu_collnet {
    TEMU_COLLNET_NONE = 0,        /* none: collectives are messages (Gemini) */
    TEMU_COLLNET_WORLD = 1,       /* a collective network for MPI_COMM_WORLD (BG/P) */
    TEMU_COLLNET_CLASS_ROUTES = 2 /* class routes on the torus: the world and any */
                                  /* rectangular block of nodes (BG/Q) */
} temu_collnet;

/* Spec options a family takes besides cores= and eager= (spec_options). */
#define TEMU_SPEC_TORUS 0x1u  /* torus=DIGITS: wrap links per dimension */
#define TEMU_SPEC_BTE 0x2u    /* bte=B: protocol.bte_threshold */
#define TEMU_SPEC_HEADER 0x4u /* header=B: protocol.mpi_header (0..64) */
#define TEMU_SPEC_M2M 0x8u    /* m2m-routing=dynamic|deterministic: protocol.m2m_deterministic */

typedef struct temu_family_info {
    int32_t system;    /* temu_system */
    const char *name;  /* SYSTEM of a spec, temu_system_name: "gemini" */
    const char *title; /* "Cray XE/XK Gemini, 3-D torus" */
    /* what every machine of the family starts from before its spec's shape
     * and options: ndims, nodes_per_router, cores_per_node,
     * threads_per_core, nlinks and the protocol thresholds */
    temu_machine base;
    const char *dims;              /* dimension letters, "XYZ" or "ABCDE" */
    const char *shape_form;        /* the shape in a spec, "XxYxZ" */
    const char *map_columns;       /* a map file line before T, "X Y Z N" (doc/mapping.md) */
    const char *default_order;     /* default rank placement as a dimension order */
                                   /* ("ABCDET"); NULL: node order, and placement by */
                                   /* letters is refused (Gemini) */
    int32_t rightmost_fastest;     /* in such an order the rightmost letter varies */
                                   /* fastest (BG/Q), else the leftmost (BG/P) */
    int32_t rpn_power_of_two;      /* ranks per node must be a power of two (BG/Q) */
    const char *const *link_names; /* base.nlinks names: torus links, the extra port */
    const char *link_alias;        /* another name of the extra port ("host"), or NULL */
    uint32_t spec_options;         /* TEMU_SPEC_* bits */
    const char *idle_preset;       /* the machine components read with no session */
    /* Gemini router tiles (0 on Blue Gene): tile = row * tile_cols + column */
    int32_t tiles, tile_rows, tile_cols, tile_counters;
    /* traffic */
    uint32_t unit_bytes;     /* bytes of the unit link counters count: 3 (phit), 32 (chunk) */
    const char *unit_name;   /* "phits", "32-byte chunks" */
    uint32_t packet_header;  /* Blue Gene: header bytes of every packet; Gemini 0 */
                             /* (transactions, temu_gemini_put_request_phits) */
    uint32_t max_packet;     /* largest packet on a link, bytes with its header */
    uint32_t vcs;            /* virtual channels the link counters tell apart */
    int32_t counts_arrivals; /* link traffic is counted where it arrives (Gemini */
                             /* tiles), else on the link it leaves by */
    int32_t stall_toward;    /* the link stall counter belongs to the receiving end */
    uint32_t payload;        /* temu_payload_use */
    uint32_t collnet;        /* temu_collnet */
    int32_t bruck_alltoall;  /* its MPI sent short all-to-alls by Bruck's algorithm */
    int32_t live_timing;     /* `torusemu run --virtual-time` runs the timing model */
                             /* beside the ranks (BG/P: not yet, doc/virtual-time.md) */
    /* clocks in Hz */
    uint64_t router_hz; /* what link stall counters count: Gemini router 800 MHz, */
                        /* BG/P 850 MHz (the torus runs at the core clock), BG/Q */
                        /* network 500 MHz */
    uint64_t core_hz;   /* processor: BG/P 850 MHz, BG/Q A2 1.6 GHz; 0: the host's */
    uint64_t mu_hz;     /* BG/Q message unit 800 MHz; 0: no message unit */
    /* links */
    int32_t max_lanes; /* lanes (channels) of the widest link: Gemini 8 tiles */
    double lane_gbs;   /* GB/s of a lane per direction; 0: by medium (Gemini) */
    /* what tools print of the link counters (plot titles) */
    const char *volume_measure; /* "phits arrived (VC0+VC1)" */
    const char *stall_measure;  /* "inq + credit stall cycles (800 MHz)" */
} temu_family_info;

/* The descriptor of a system (temu_system), NULL for none. */
const temu_family_info *temu_family_info_get(int32_t system);

/* Whole cycles of a clock of hz Hz in ps picoseconds (ps >= 0): floor(ps x
 * hz / 10^12), exact. */
uint64_t temu_clock_cycles(uint64_t hz, int64_t ps);

/* Lanes of link `link` of any router (Gemini: the tiles of the direction;
 * Blue Gene 1); 0 for a link the machine does not have. */
int temu_link_lanes(const temu_machine *m, int link);
/* Bandwidth of one lane of the link leaving `router` through `link`, GB/s
 * per direction (Gemini: the tile rate of the link's medium). */
double temu_link_lane_gbs(const temu_machine *m, int64_t router, int link);

/* ------------------------------------------------------------------------ */
/* Gemini tiles                                                              */
/* ------------------------------------------------------------------------ */

#define TEMU_GEMINI_TILES 48 /* 6 rows x 8 columns, tile = row*8 + column */
#define TEMU_GEMINI_TILE_ROWS 6
#define TEMU_GEMINI_TILE_COLS 8
#define TEMU_GEMINI_TILE_COUNTERS 6

/* Tile counter index, as GM_n_m_TILE_PERFORMANCE_COUNTERS_k (Pedretti 2013, Table I). */
enum temu_gemini_tile_counter {
    TEMU_TILE_VC0_PHITS = 0,   /* request phits arriving at the tile            */
    TEMU_TILE_VC1_PHITS = 1,   /* response phits arriving at the tile           */
    TEMU_TILE_VC0_PKTS = 2,    /* request packets arriving                       */
    TEMU_TILE_VC1_PKTS = 3,    /* response packets arriving                      */
    TEMU_TILE_INQ_STALL = 4,   /* input-queue stall cycles (800 MHz; reads 0)    */
    TEMU_TILE_CREDIT_STALL = 5 /* output credit stall cycles (800 MHz; reads 0)  */
};

typedef enum temu_medium {
    TEMU_MEDIUM_MEZZANINE = 0,
    TEMU_MEDIUM_BACKPLANE = 1,
    TEMU_MEDIUM_CABLE = 2,
    TEMU_MEDIUM_HOST = 3
} temu_medium;

/* Per-tile bandwidth in GB/s by medium (lane rate x 3 lanes / 8). */
double temu_medium_tile_bandwidth(temu_medium medium);
const char *temu_medium_name(temu_medium medium);

/* Link (direction) served by a tile in the default map of Pedretti 2013 Fig. 3. */
int temu_gemini_tile_link(int tile);
/* Tiles of a link, in ascending tile order; returns the count (8, 4 or 8). */
int temu_gemini_link_tiles(int link, int *tiles);
/* Medium of the logical link leaving router `router` through `link`. */
temu_medium temu_gemini_link_medium(const temu_machine *m, int64_t router, int link);
/* Aggregate bandwidth of that logical link in GB/s (tiles x per-tile rate). */
double temu_gemini_link_bandwidth(const temu_machine *m, int64_t router, int link);
/* Tile on the neighbour that receives what `tile` sends (same position in
 * the opposite direction's tile list). */
int temu_gemini_peer_tile(int tile);
/* Write the `rtr --interconnect` text (40 lines per Gemini). */
temu_status temu_gemini_write_interconnect(const temu_machine *m, FILE *f, temu_error *err);

/* Gemini NIC counters the model fills, one set per node (16-byte NIC flits,
 * one header flit per packet; see doc/model.md). */
enum temu_gemini_nic_counter {
    TEMU_NIC_ORB_VC0_PKTS = 0, /* requests this NIC issued                   */
    TEMU_NIC_ORB_VC0_FLITS,
    TEMU_NIC_ORB_VC1_PKTS, /* responses returned to this NIC             */
    TEMU_NIC_ORB_VC1_FLITS,
    TEMU_NIC_RAT_HEADER_FLITS_VC0, /* requests arriving at this NIC (target) */
    TEMU_NIC_RAT_DATA_FLITS_VC0,
    TEMU_NIC_NPT_PKTS, /* responses this NIC sent as target          */
    TEMU_NIC_NPT_FLITS,
    TEMU_NIC_TARB_FMA_PKTS, /* requests issued through FMA                */
    TEMU_NIC_TARB_FMA_FLITS,
    TEMU_NIC_TARB_BTE_PKTS, /* requests issued through the BTE            */
    TEMU_NIC_TARB_BTE_FLITS,
    TEMU_NIC_TARB_OUT_PKTS, /* everything this NIC put on the network     */
    TEMU_NIC_TARB_OUT_FLITS,
    TEMU_NIC_COUNTERS = 16 /* slots reserved per node                    */
};

/* ------------------------------------------------------------------------ */
/* Blue Gene counters                                                        */
/* ------------------------------------------------------------------------ */

/* BG/P per node and torus direction (links 0..5 in temu numbering). */
#define TEMU_BGP_LINKS 6 /* X-, X+, Y-, Y+, Z-, Z+ */
enum temu_bgp_counter {
    TEMU_BGP_PACKETS = 0,       /* packets sent (UPC mode 0)                 */
    TEMU_BGP_CHUNKS,            /* 32-byte chunks sent (mode 0)              */
    TEMU_BGP_VCD0_CHUNKS,       /* chunks on dynamic VC 0 (mode 2)           */
    TEMU_BGP_VCD1_CHUNKS,       /* chunks on dynamic VC 1                    */
    TEMU_BGP_VCBN_CHUNKS,       /* chunks on the bubble (deterministic) VC   */
    TEMU_BGP_VCBP_CHUNKS,       /* chunks on the priority VC                 */
    TEMU_BGP_TOKEN_ACK_PACKETS, /* link-protocol token/ack packets sent      */
    TEMU_BGP_ACKS,              /* link-protocol ack packets sent            */
    TEMU_BGP_NO_TOKENS,         /* cycles without tokens (congestion; 0)     */
    TEMU_BGP_NO_VCD0_TOKENS,
    TEMU_BGP_NO_VCBN_TOKENS,
    TEMU_BGP_NO_VCBP_TOKENS,
    TEMU_BGP_COUNTERS = 12
};

/* BG/Q network virtual channels; UPC mask bit = 0x40 >> vc. */
enum temu_bgq_vc {
    TEMU_BGQ_VC_USER_DYNAMIC = 0,
    TEMU_BGQ_VC_USER_ESCAPE = 1, /* deterministic routing */
    TEMU_BGQ_VC_USER_PRIORITY = 2,
    TEMU_BGQ_VC_SYSTEM = 3,
    TEMU_BGQ_VC_COLL_WORLD = 4,
    TEMU_BGQ_VC_COLL_SUBCOMM = 5,
    TEMU_BGQ_VC_COLL_SYSTEM = 6,
    TEMU_BGQ_VCS = 7
};

/* What a BG/Q NW counter measures per link and VC. */
enum temu_bgq_nw_kind {
    TEMU_BGQ_NW_SENT_CHUNKS = 0,  /* 32-byte chunks sent on the link          */
    TEMU_BGQ_NW_RECV_PACKETS = 1, /* packets received on the link             */
    TEMU_BGQ_NW_RECV_FIFO = 2,    /* receive-FIFO occupancy sum (timing model) */
    TEMU_BGQ_NW_KINDS = 3
};

#define TEMU_BGQ_LINKS 11       /* A-..E+ and the I/O link */
#define TEMU_BGQ_MU_COUNTERS 64 /* UPC_C I/O SRAM indices (events_io.tsv)   */
#define TEMU_BGQ_L2_SLICES 16
#define TEMU_BGQ_L2_COUNTERS 16
#define TEMU_BGQ_CNK_NODE_COUNTERS 2
#define TEMU_BGQ_CNK_HWT_COUNTERS 27
#define TEMU_BGQ_HWTHREADS 64 /* 16 cores x 4 threads */

/* MU SRAM indices the model writes (BG/Q driver, upci/events.h). */
enum temu_bgq_mu_index {
    TEMU_MU_PKT_INJ = 0,       /* packets injected, first of each message excluded */
    TEMU_MU_MSG_INJ = 1,       /* messages (descriptors) injected             */
    TEMU_MU_FIFO_PKT_RCV = 2,  /* memory-FIFO packets received                */
    TEMU_MU_RGET_PKT_RCV = 3,  /* remote-get packets received                 */
    TEMU_MU_PUT_PKT_RCV = 4,   /* direct-put packets received                 */
    TEMU_MU_PORT0_16B_WRT = 5, /* 16-byte memory writes of arriving packets   */
    TEMU_MU_PORT0_32B_RD = 6,  /* injection reads of packet payload, by size  */
    TEMU_MU_PORT0_64B_RD = 7,
    TEMU_MU_PORT0_128B_RD = 8,
    TEMU_MU_MODELLED = 19, /* SRAM indices 0..18 are the MU's own counters */
    /* from the timing model (doc/model.md, "Message-unit pending requests") */
    TEMU_MU_PORT0_PEND_WRT = 34, /* write requests pending, summed per 800 MHz cycle */
    TEMU_MU_PORT0_PEND_RD = 35   /* read requests pending, summed per 800 MHz cycle  */
};

/* ------------------------------------------------------------------------ */
/* Rank-to-node mapping                                                      */
/* ------------------------------------------------------------------------ */

typedef struct temu_slot {
    int32_t node; /* node id                        */
    int32_t t;    /* slot on the node (T), 0..rpn-1 */
} temu_slot;

typedef struct temu_mapping {
    int32_t nranks;
    int32_t ranks_per_node;
    temu_slot *slot; /* nranks entries */
} temu_mapping;

/*
 * Build a mapping of nranks ranks, ranks_per_node per node.  `how` is one of
 *   NULL or ""      the system's default order (BG/Q ABCDET, BG/P XYZT,
 *                   Gemini sequential node order)
 *   a permutation   of the dimension letters plus T ("ABCDET", "TEDCBA",
 *                   "XYZT", "TXYZ"); BG/Q: rightmost letter fastest,
 *                   BG/P: leftmost letter fastest, as each machine had it
 *   random:SEED     the default slots, shuffled with a seeded generator
 *   a file path     a map file (doc/mapping.md)
 */
temu_status temu_mapping_build(const temu_machine *m, int32_t nranks, int32_t ranks_per_node,
                               const char *how, temu_mapping *out, temu_error *err);
/* Parse a map file from text already in memory (name is used in messages). */
temu_status temu_mapping_parse_text(const temu_machine *m, int32_t nranks, int32_t ranks_per_node,
                                    const char *text, const char *name, temu_mapping *out,
                                    temu_error *err);
void temu_mapping_free(temu_mapping *map);

/* ------------------------------------------------------------------------ */
/* Routing                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct temu_hop {
    int64_t from;    /* router the packet leaves               */
    int64_t to;      /* router it arrives at                   */
    int32_t link;    /* outgoing link on `from`                */
    int32_t in_link; /* link on `to` it arrives through       */
} temu_hop;

#define TEMU_MAX_HOPS 512

/* Deterministic route from router src to router dst.  Writes at most max
 * hops and returns the hop count (0 when src == dst), or -1 if max is too
 * small.  Pure: depends only on the machine and the two routers. */
int temu_route(const temu_machine *m, int64_t src, int64_t dst, temu_hop *hops, int max);

/* Hop count only (same rule as temu_route). */
int temu_route_distance(const temu_machine *m, int64_t src, int64_t dst);

/* ------------------------------------------------------------------------ */
/* Packetization                                                             */
/* ------------------------------------------------------------------------ */

typedef enum temu_kind {
    TEMU_KIND_P2P = 0,        /* MPI point-to-point: the MPI protocol applies */
    TEMU_KIND_COLL_WORLD = 1, /* collective traffic on MPI_COMM_WORLD          */
    TEMU_KIND_COLL_SUB = 2,   /* collective traffic on a sub-communicator      */
    TEMU_KIND_PUT = 3,        /* one-sided put: src writes into dst            */
    TEMU_KIND_GET = 4,        /* one-sided get: src reads from dst; the data   */
                              /* travels dst -> src                            */
    TEMU_KIND_ALLTOALL = 5    /* a block of MPI_Alltoall(v): BG/Q sends it by  */
                              /* PAMI's many-to-many protocol, the other      */
                              /* families as p2p                              */
} temu_kind;

const char *temu_kind_name(temu_kind kind);
int temu_kind_parse(const char *name); /* -1 if unknown */

/*
 * The traffic a message puts on the network, split by direction:
 *   dir 0 = source -> destination route, dir 1 = destination -> source route.
 * Gemini: phits and packets per VC bucketed by "slot" (transaction index
 * modulo 8; doc/model.md explains how slots spread over a link's tiles).
 * Blue Gene: 32-byte chunks and packets per VC.
 * Endpoint counters (Gemini NIC, BG/Q message unit) per side.
 */
#define TEMU_SLOTS 8
typedef struct temu_plan {
    int32_t system;
    int32_t local; /* 1 when both ends share a node: no traffic at all */
    /* Gemini */
    uint64_t phits[2][2][TEMU_SLOTS]; /* [dir][vc][slot] */
    uint64_t pkts[2][2][TEMU_SLOTS];
    uint64_t nic[2][TEMU_NIC_COUNTERS]; /* [0]=source node, [1]=destination node */
    /* Blue Gene (BG/P uses vc 0..3: VCD0, VCD1, VCBN, VCBP) */
    uint64_t chunks[2][TEMU_BGQ_VCS]; /* [dir][vc] */
    uint64_t packets[2][TEMU_BGQ_VCS];
    uint64_t mu[2][TEMU_MU_MODELLED];        /* BG/Q message unit, [side][SRAM index] */
    uint64_t l2_hits[2][TEMU_BGQ_L2_SLICES]; /* BG/Q: L2 lines the MU touched, [side][slice] */
    uint32_t gemini_slot_base;               /* first tile slot used on every link */
} temu_plan;

/* Largest message the model takes, in bytes (2^48 = 256 TiB): far above any
 * MPI message, and low enough that no packet, chunk or phit count of a plan
 * can wrap around 2^64.  temu_plan_message refuses larger ones. */
#define TEMU_MAX_MESSAGE_BYTES (1ull << 48)

/* Message description for packetization and injection. */
typedef struct temu_message {
    int64_t src;         /* source node                                  */
    int64_t dst;         /* destination node                             */
    uint64_t bytes;      /* payload bytes                                */
    const void *payload; /* optional: the bytes (Gemini compression)     */
    temu_kind kind;
} temu_message;

/* Fill plan for a message on machine m.  Pure. */
temu_status temu_plan_message(const temu_machine *m, const temu_message *msg, temu_plan *plan,
                              temu_error *err);

/* Gemini transaction sizes in phits (Pedretti 2013 section V.A; doc/model.md):
 * payload 1..64 bytes, compressed = payload is a run of zero or one bits. */
uint32_t temu_gemini_put_request_phits(uint32_t payload, int compressed);
uint32_t temu_gemini_get_response_phits(uint32_t payload, int compressed);
#define TEMU_GEMINI_PUT_RESPONSE_PHITS 3u
#define TEMU_GEMINI_GET_REQUEST_PHITS 8u
#define TEMU_GEMINI_MAX_TRANSACTION 64u

/* 1 if all `len` bytes are 0x00 or all are 0xFF (Gemini compresses such
 * payloads).  len may be 0 (returns 1). */
int temu_payload_is_uniform(const void *p, size_t len);

/* ------------------------------------------------------------------------ */
/* Sessions and the counter store                                            */
/* ------------------------------------------------------------------------ */

#define TEMU_STORE_ABI_VERSION 5u
#define TEMU_SESSION_ENV "TORUSEMU_SESSION"

typedef struct temu_session temu_session;

/*
 * Create a store file at path for machine m and (optional) mapping.  The
 * store is written in full under a fresh name in the same directory (created
 * exclusively, O_EXCL|O_NOFOLLOW), its pages allocated (posix_fallocate: a
 * full file system is an error here, never a SIGBUS later), and only then
 * published under path: an existing path - file, symlink or anything else -
 * is refused unless TEMU_CREATE_REPLACE, which renames the new store over it
 * (processes still attached to the old store keep the old file).  The file
 * is owner-only (0600) unless TEMU_CREATE_GROUP (0660: the file's group may
 * read and inject).  doc/store.md describes the permission model.
 * temu_session_create is temu_session_create_ex with flags 0.
 * TEMU_CREATE_VIRTUAL_TIME marks the store's network clock as virtual: a
 * timed replay (temu_vt) then counts BG/Q network cycles of virtual time in
 * it (temu_idx_bgq_nw_cycles), and PEVT_NW_CYCLES reads them instead of
 * host time (`torusemu replay --timing` creates its store so).
 */
#define TEMU_CREATE_REPLACE 0x1u
#define TEMU_CREATE_GROUP 0x2u
#define TEMU_CREATE_VIRTUAL_TIME 0x4u
temu_status temu_session_create(const char *path, const temu_machine *m, const temu_mapping *map,
                                temu_session **out, temu_error *err);
temu_status temu_session_create_ex(const char *path, const temu_machine *m,
                                   const temu_mapping *map, unsigned flags, temu_session **out,
                                   temu_error *err);
/* Attach to an existing store (read-write).  Nothing in the file is
 * trusted: the header is copied once, checked against the machine re-parsed
 * from its stored name, and only that checked copy is used afterwards. */
temu_status temu_session_attach(const char *path, temu_session **out, temu_error *err);
/* Attach read-only (file opened O_RDONLY, pages mapped PROT_READ): enough to
 * read counters (`torusemu dump`) with read permission alone.  Functions that
 * write (inject, add, zero, register, watches) fail with TEMU_EINVAL or do
 * nothing on such a session. */
#define TEMU_ATTACH_READONLY 0x1u
temu_status temu_session_attach_ex(const char *path, unsigned flags, temu_session **out,
                                   temu_error *err);
/* 1 when the session was attached read-only. */
int temu_session_readonly(const temu_session *s);
/* Attach to the store named by $TORUSEMU_SESSION; TEMU_ENOSESSION if unset. */
temu_status temu_session_attach_env(temu_session **out, temu_error *err);
/* A private, zeroed in-memory store (no file): an idle machine. */
temu_status temu_session_create_private(const temu_machine *m, temu_session **out, temu_error *err);
void temu_session_close(temu_session *s);

const temu_machine *temu_session_machine(const temu_session *s);
const char *temu_session_path(const temu_session *s); /* "" when private */
int32_t temu_session_nranks(const temu_session *s);
int32_t temu_session_ranks_per_node(const temu_session *s);
/* 1 when the store was created with TEMU_CREATE_VIRTUAL_TIME. */
int temu_session_virtual_time(const temu_session *s);
/* Node and slot of a rank from the stored mapping. */
temu_status temu_session_rank_slot(const temu_session *s, int32_t rank, temu_slot *slot,
                                   temu_error *err);

/* Record that the calling process is `rank` (pid kept in the store). */
temu_status temu_session_register_rank(temu_session *s, int32_t rank, temu_error *err);

/* --- process identity ---------------------------------------------------
 * Which rank, node and hardware thread the calling process is, as far as the
 * emulated machine is concerned.  The MPI layer sets it at MPI_Init; PAPI
 * components read it, also before MPI_Init (TAU starts PAPI first).  Until
 * it is set, the rank comes from the environment, the first of
 * TORUSEMU_RANK, OMPI_COMM_WORLD_RANK (Open MPI's mpirun), PMIX_RANK (any
 * PMIx launcher), PMI_RANK (MPICH's, Slurm's PMI-1/2), and the node is that
 * rank's node in the session's mapping; TORUSEMU_NODE names the node
 * directly and wins.  Without any of them the node is not known (known = 0,
 * node 0): components then refuse to count rather than read node 0. */
#define TEMU_RANK_ENV "TORUSEMU_RANK"
#define TEMU_NODE_ENV "TORUSEMU_NODE"
/* int64_t TEMU_VT_CLOCK_SYMBOL(void), exported by the MPI layer
 * (libtorusemu_mpi, mpi/rank_vtime.c): the calling rank's virtual clock in ps
 * under `torusemu run --virtual-time`, -1 without it.  Looked up by name
 * (dlsym), since only MPI programs under `torusemu run` load the layer. */
#define TEMU_VT_CLOCK_SYMBOL "torusemu_vt_clock_ps"

typedef struct temu_identity {
    int32_t rank;         /* -1 when unknown                                  */
    int64_t node;         /* node of the emulated machine                     */
    int32_t t;            /* slot on the node (0..ranks_per_node-1)            */
    int32_t core;         /* core the slot runs on                            */
    int32_t hwthread;     /* hardware thread id on the node (BG/Q 0..63)      */
    int32_t explicit_set; /* 1 when set by temu_identity_set              */
    int32_t known;        /* 1 when the node is known (set, or from the env)  */
    const char *from;     /* what gave it: "MPI_Init", a variable's name;
                           * NULL when unknown                               */
} temu_identity;

/* Core and hardware thread of slot t: slots fill the cores first, then the
 * further hardware threads of each core (BG/Q: 32 ranks per node use threads
 * 0 and 1 of every core). */
void temu_slot_placement(const temu_machine *m, int32_t t, int32_t *core, int32_t *hwthread);
void temu_identity_set(const temu_machine *m, int32_t rank, int64_t node, int32_t t);
/* Current identity; s (may be NULL) resolves a rank variable to a node. */
temu_identity temu_identity_get(const temu_session *s);

/* Inject one message between nodes / between ranks of the stored mapping. */
temu_status temu_inject(temu_session *s, const temu_message *msg, temu_error *err);
temu_status temu_inject_ranks(temu_session *s, int32_t src_rank, int32_t dst_rank, uint64_t bytes,
                              const void *payload, temu_kind kind, temu_error *err);
/* A message that travels a given set of hops instead of the deterministic
 * route - a BG/Q collective on its class-route tree: the traffic of `bytes`
 * of `kind` (a collective kind) on every edge, the message-unit and L2
 * counts of one injection at each node of inj[] and one reception at each
 * node of rcv[], and one message per injection in the session totals.  No
 * edge: nothing (every member on one node).  BG/Q only. */
temu_status temu_inject_tree(temu_session *s, uint64_t bytes, temu_kind kind, const temu_hop *edges,
                             int nedges, const int64_t *inj, int ninj, const int64_t *rcv, int nrcv,
                             temu_error *err);
/* Apply an already computed plan along the routes of msg (same as
 * temu_inject after temu_plan_message). */
void temu_apply_plan(temu_session *s, const temu_message *msg, const temu_plan *plan);

/* Totals kept in the header for the launcher summary. */
uint64_t temu_session_messages(const temu_session *s);
uint64_t temu_session_bytes(const temu_session *s);

/* --- counter addressing: flat index into the store's counter array ------ */
uint64_t temu_counter_count(const temu_session *s);
int64_t temu_idx_gemini_tile(const temu_machine *m, int64_t router, int tile, int counter);
int64_t temu_idx_gemini_nic(const temu_machine *m, int64_t node, int counter);
int64_t temu_idx_bgp(const temu_machine *m, int64_t node, int link, int counter);
int64_t temu_idx_bgq_nw(const temu_machine *m, int64_t node, int link, int kind, int vc);
int64_t temu_idx_bgq_mu(const temu_machine *m, int64_t node, int sram_index);
int64_t temu_idx_bgq_l2(const temu_machine *m, int64_t node, int slice, int counter);
int64_t temu_idx_bgq_cnk_node(const temu_machine *m, int64_t node, int counter);
int64_t temu_idx_bgq_cnk_hwt(const temu_machine *m, int64_t node, int hwthread, int counter);
/* BG/Q network cycles of virtual time of a node (500 MHz: 2000 ps a cycle),
 * counted only in a store whose clock is virtual (temu_session_virtual_time). */
int64_t temu_idx_bgq_nw_cycles(const temu_machine *m, int64_t node);
#define TEMU_BGQ_NW_CYCLE_PS 2000
/* Virtual time went from from_ps to to_ps (0 <= from_ps <= to_ps): add the
 * network cycles that ended in between, floor(to_ps / 2000) - floor(from_ps
 * / 2000), to every node's counter.  Nothing on a store whose clock is not
 * virtual or of another system. */
void temu_bgq_nw_cycles_advance(temu_session *s, int64_t from_ps, int64_t to_ps);

/* Total number of counters a machine's store holds. */
uint64_t temu_machine_counter_count(const temu_machine *m);

/* Read / add one counter (lock-free atomics; safe across processes). */
uint64_t temu_counter_read(const temu_session *s, int64_t idx);
/* Read n counters at once (same semantics as temu_counter_read for each;
 * one call per PAPI_read of a whole event set). */
void temu_counter_read_many(const temu_session *s, const int64_t *idx, int n, uint64_t *out);
void temu_counter_add(temu_session *s, int64_t idx, uint64_t delta);
/* Zero every counter (tests and `torusemu reset`). */
void temu_session_zero(temu_session *s);

/* --- overflow watches ----------------------------------------------------
 * A watch sums the increments of a set of counters from the moment it is
 * armed (or restarted) and, each time the sum passes another multiple of its
 * threshold, records one overflow and sends a signal to the thread that armed
 * it.  Detection happens inside whichever process injects the traffic (the
 * sender, or any process whose messages pass through the watched node), so
 * remote traffic is seen too.  With nothing armed the injection path pays
 * one load per injection.  Arming is visible to injections that start after
 * temu_watch_arm returns. */
#define TEMU_WATCH_MAX 256          /* armed watches per session           */
#define TEMU_WATCH_MAX_COUNTERS 128 /* counters one watch may sum          */

typedef struct temu_watch_spec {
    const int64_t *counters; /* counter indices whose sum is watched        */
    int32_t ncounters;       /* 1..TEMU_WATCH_MAX_COUNTERS                   */
    int32_t signo;           /* signal sent on each crossing (0: none)       */
    uint64_t threshold;      /* counts per overflow, >= 1                    */
    int32_t pid, tid;        /* thread to signal; 0, 0 = the calling thread  */
} temu_watch_spec;

temu_status temu_watch_arm(temu_session *s, const temu_watch_spec *spec, int32_t *id,
                           temu_error *err);
/* Stop watching; the slot may be reused. */
void temu_watch_disarm(temu_session *s, int32_t id);
/* Sum from zero again and forget pending overflows (PAPI_reset keeps an
 * overflow armed and counts the threshold from the reset). */
void temu_watch_restart(temu_session *s, int32_t id);
/* Overflows recorded since the last take (and clears them). */
uint64_t temu_watch_take(temu_session *s, int32_t id);
/* Counts summed since arm / restart. */
uint64_t temu_watch_value(const temu_session *s, int32_t id);
/* Number of armed watches in the session. */
uint32_t temu_watch_armed(const temu_session *s);

/* Options of temu_watch_arm_ex; all zero (or NULL) is temu_watch_arm.
 *   weights   one per counter of the spec: the watch sums weight x
 *             increment, so a derived count such as 32 x chunks (bytes)
 *             crosses its thresholds exactly; 1..TEMU_WATCH_MAX_WEIGHT,
 *             NULL = 1 for every counter.
 *   delay_ns  "slow" overflow detection (Blue Gene/Q L2 and I/O units,
 *             McCraw 2013 section 3.1): the crossing is recorded when it
 *             happens, but the signal leaves only after the whole update
 *             (a message) has landed and at least delay_ns after the
 *             crossing; the injecting thread waits for it.  Signals of
 *             such a watch are one per update, not one per crossing.
 *             0 = signal at once (temu_watch_arm); at most
 *             TEMU_WATCH_MAX_DELAY_NS. */
#define TEMU_WATCH_MAX_WEIGHT 65535u
#define TEMU_WATCH_MAX_DELAY_NS 1000000000u
typedef struct temu_watch_options {
    const uint32_t *weights;
    uint32_t delay_ns;
} temu_watch_options;

temu_status temu_watch_arm_ex(temu_session *s, const temu_watch_spec *spec,
                              const temu_watch_options *opt, int32_t *id, temu_error *err);
/* CLOCK_MONOTONIC time in ns at which the watch's latest crossing was
 * detected (by whichever process injected it); 0 before the first.  For
 * measuring the delay from a crossing to its handler. */
uint64_t temu_watch_crossed_ns(const temu_session *s, int32_t id);

/* Make sure the calling thread hears of its crossings: for every watch it
 * armed that has overflows not yet taken, raise the watch's signal to the
 * thread itself (delivered before this call returns when not blocked); a
 * slow watch (delay_ns) only once its delay has passed since the crossing.
 * A crossing caused by another process is signalled by that process, but a
 * signal to a thread running on another CPU may arrive microseconds later;
 * the MPI layer calls this when a collective returns, so a crossing caused
 * before a synchronization reaches its handler before the owner leaves it.
 * Returns the number of signals raised; nothing armed costs one load.
 * TORUSEMU_WATCH_LATE_SIGNALS=1 in the environment (tests) makes crossings
 * never signal another thread, the extreme of late delivery. */
int temu_watch_deliver_own(temu_session *s);

/* --- node-wide unit state -------------------------------------------------
 * TEMU_NODE_WORDS 64-bit words per node, zero at creation, shared by every
 * process of the session, for hardware rules that hold for a whole node
 * (BG/P UPC counter mode, BG/Q L2 combine mode, BG/Q NW link owners).  Use
 * __atomic builtins on them.  Word assignment is owned by the components
 * (doc/components.md); a private store has its own. */
#define TEMU_NODE_WORDS 128
uint64_t *temu_node_words(temu_session *s, int64_t node);

/* Name of counter idx, e.g. "gemini(0,0,1) tile 26 (l32, Z-) VC0_PHITS". */
int temu_counter_describe(const temu_machine *m, int64_t idx, char *buf, size_t len);

/* What link `link` of `router` carried, read from the store in the
 * family's units: TEMU_LINK_TRAFFIC the units counted for the link
 * (temu_family_info.unit_name; Gemini: phits arriving at `router` through
 * the link's tiles, VC0 + VC1; Blue Gene: sent on the link, all VCs),
 * TEMU_LINK_STALL its stall counter from the timing model
 * (temu_family_info.stall_measure; Gemini: INQ_STALL + CREDIT_STALL of the
 * link's tiles; BG/Q: the receive-FIFO occupancy of all VCs; BG/P:
 * NO_TOKENS).  0 for a link the machine does not have. */
typedef enum temu_link_measure { TEMU_LINK_TRAFFIC = 0, TEMU_LINK_STALL = 1 } temu_link_measure;
uint64_t temu_link_read(const temu_session *s, int64_t router, int link, temu_link_measure what);

/* The counters temu_tm_add_stall_counters adds to (torusemu_timing.h):
 * writes their indices into idx unless idx is NULL, returns how many. */
int64_t temu_stall_counters(const temu_machine *m, int64_t *idx);

/* --- runs across hosts (doc/mpi.md, "Across hosts") ------------------------
 * A live run may span hosts: each host keeps its own store, and an update
 * of a counter another host owns travels to that host (the MPI layer
 * carries it).  A counter's owner is the unit its store section is indexed
 * by: the router of a Gemini tile counter, the node of every other counter
 * (link counters belong to the node whose link it is).  Hosts are given
 * whole units, so every rank reads its own node's counters on its host.
 *
 * The rule (temu_hosts_assign): the units that hold ranks, in the order of
 * their lowest rank, are cut into N consecutive blocks, unit i of k going to
 * host floor(i * N / k); a unit without ranks belongs to host (unit mod N);
 * a rank lives on its unit's host.  With the default mapping host 0 holds
 * the first ranks, host 1 the next, and so on. */
#define TEMU_HOSTS_ENV "TORUSEMU_HOSTS"             /* N: the run spans N hosts */
#define TEMU_HOST_STORES_ENV "TORUSEMU_HOST_STORES" /* directory of host<h>.store */
/* set by `torusemu run --split-hosts` on one machine: it gathers the hosts'
 * stores itself, rank 0 does not (mpi/hosts.c) */
#define TEMU_HOSTS_GATHERED_ENV "TORUSEMU_HOSTS_GATHERED"
#define TEMU_HOSTS_MAX 4096

typedef struct temu_hosts temu_hosts;
/* Hosts of a run of s's mapping over nhosts hosts; refused (TEMU_ERANGE)
 * when fewer units hold ranks than there are hosts. */
temu_status temu_hosts_assign(const temu_session *s, int32_t nhosts, temu_hosts **out,
                              temu_error *err);
void temu_hosts_free(temu_hosts *h);
int32_t temu_hosts_count(const temu_hosts *h);
/* Host of world rank r (-1 outside the mapping). */
int32_t temu_hosts_rank_host(const temu_hosts *h, int32_t rank);
/* Host that owns counter idx (-1 outside the store). */
int32_t temu_hosts_counter_host(const temu_hosts *h, int64_t idx);
/* "DIR/host<h>.store" into out; -1 when it does not fit. */
int temu_hosts_store_path(const char *dir, int32_t host, char *out, size_t len);

/* A rank's host store named by TORUSEMU_HOSTS and TORUSEMU_HOST_STORES is
 * made (with its directory, 0700) by the first process of the host that
 * attaches, when missing: on hosts the launcher cannot reach. */

/* Where a split session's updates for another host go: n (index, delta)
 * pairs of host `host`, flat (pairs[2i] the counter index, pairs[2i+1] the
 * amount); returns 0 when they reached the host's store. */
typedef int (*temu_split_send_fn)(void *ctx, int32_t host, const uint64_t *pairs, int32_t n);
/* Make s the store of host `host` of h: from now on every update this
 * process makes of a counter another host owns is set aside and handed to
 * send at the end of the update (injection) that made it, per host. */
temu_status temu_session_split(temu_session *s, const temu_hosts *h, int32_t host,
                               temu_split_send_fn send, void *ctx, temu_error *err);
/* Apply updates another host sent (the owner's side): n pairs as above;
 * watches armed on them cross as if the update were made here.  Pairs of
 * counters this host does not own are refused (returns their number). */
int32_t temu_session_apply_updates(temu_session *s, const uint64_t *pairs, int32_t n);
/* One store from the hosts' stores: dst (a store of the same machine and
 * mapping, fresh or holding counts of its own, such as the online timing
 * model's) gains each counter from the host that owns it and the message
 * and byte totals of them all; each rank's registration comes from its
 * host.  A counter a host does not own must be 0 in its store (checked).
 * Gather once: a second gather adds the counts again. */
temu_status temu_session_gather(temu_session *dst, temu_session *const *host_stores,
                                const temu_hosts *h, temu_error *err);
/* The same for one host's counters (ncounters of them, as in its store):
 * those it owns added into dst; any other must be 0.  The totals are set
 * apart (temu_session_set_totals), once every host's counters arrived. */
temu_status temu_session_gather_host(temu_session *dst, const temu_hosts *h, int32_t host,
                                     const uint64_t *counters, uint64_t ncounters,
                                     temu_error *err);
void temu_session_set_totals(temu_session *s, uint64_t messages, uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TORUSEMU_H */
