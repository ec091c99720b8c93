/*
 * machine.c - machine descriptions: spec parsing, presets, coordinates,
 * link names and node names.  Everything here is a pure function of its
 * inputs.
 */
#define TEMU_BUILDING_LIBRARY 1
#include "emu_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Largest machine the model accepts (node ids are 32-bit in mappings). */
#define TEMU_MAX_NODES (1LL << 24)
#define TEMU_MAX_DIM_SIZE 1024

typedef struct preset {
    const char *name;
    const char *spec; /* expanded spec, may carry options */
    const char *what;
} preset;

/*
 * Shapes and their sources:
 *  Gemini: Cielo 16x12x24 (Pedretti 2013 §III), Blue Waters 24x24x24
 *  (Jha 2018 §II), Titan 25x16x24 and Hopper 17x8x24 (the lanl/PPT
 *  machine configurations).
 *  BG/P: midplane 8x8x8 and smaller blocks (Lakner 2008: the
 *  redbook's <4,2,2> example); sub-midplane blocks are meshes.
 *  BG/Q: midplane 4x4x4x4x2, node board 2x2x2x2x2, sub-blocks 64/128/256,
 *  Mira 8x12x16x16x2 (BG/Q driver, doc/references.md).  Which sub-block
 *  dimensions wrap is our assumption (doc/model.md): a dimension wraps when
 *  it spans the whole midplane (length 4) and E always wraps.
 */
static const preset presets[] = {
    {"cielo", "gemini:16x12x24,cores=16", "Cray XE6 Cielo (LANL/SNL), 9,216 nodes"},
    {"bluewaters", "gemini:24x24x24,cores=32", "Cray XE/XK Blue Waters (NCSA), 27,648 nodes"},
    {"titan", "gemini:25x16x24,cores=16", "Cray XK7 Titan (ORNL), 19,200 nodes"},
    {"hopper", "gemini:17x8x24,cores=24", "Cray XE6 Hopper (NERSC), 6,528 nodes"},
    {"gemini-tiny", "gemini:2x2x2", "8 Geminis, 16 nodes (tests)"},
    {"gemini-small", "gemini:4x4x4", "64 Geminis, 128 nodes (tests)"},
    {"bgp-16", "bgp:4x2x2,torus=000", "16-node block, the redbook's <4,2,2> example (mesh)"},
    {"bgp-nodecard", "bgp:4x4x2,torus=000", "32-node node card (mesh)"},
    {"bgp-128", "bgp:4x4x8,torus=000", "128-node block (mesh)"},
    {"bgp-midplane", "bgp:8x8x8", "512-node midplane (torus)"},
    {"bgp-rack", "bgp:8x8x16", "1,024-node rack (torus)"},
    {"nodeboard", "bgq:2x2x2x2x2,torus=00001", "BG/Q 32-node node board"},
    {"bgq-64", "bgq:2x2x4x2x2,torus=00101", "BG/Q 64-node sub-block"},
    {"bgq-128", "bgq:2x2x4x4x2,torus=00111", "BG/Q 128-node sub-block"},
    {"bgq-256", "bgq:4x2x4x4x2,torus=10111", "BG/Q 256-node sub-block"},
    {"midplane", "bgq:4x4x4x4x2", "BG/Q 512-node midplane (McCraw et al. 2013, Table 4)"},
    {"mira", "bgq:8x12x16x16x2", "BG/Q Mira (ANL), 49,152 nodes"},
};

static const char *system_dims(int32_t system)
{
    return system == TEMU_SYSTEM_BGQ ? "ABCDE" : "XYZ";
}

const char *temu_system_name(int32_t system)
{
    switch (system) {
    case TEMU_SYSTEM_GEMINI:
        return "gemini";
    case TEMU_SYSTEM_BGP:
        return "bgp";
    case TEMU_SYSTEM_BGQ:
        return "bgq";
    }
    return "unknown";
}

static const char *system_long_name(int32_t system)
{
    switch (system) {
    case TEMU_SYSTEM_GEMINI:
        return "Cray XE/XK Gemini, 3-D torus";
    case TEMU_SYSTEM_BGP:
        return "IBM Blue Gene/P, 3-D torus";
    case TEMU_SYSTEM_BGQ:
        return "IBM Blue Gene/Q, 5-D torus";
    }
    return "unknown";
}

void temu_machine_list_presets(FILE *f)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        fprintf(f, "%-14s %-28s %s\n", presets[i].name, presets[i].spec, presets[i].what);
    }
}

static const preset *find_preset(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        if (strlen(presets[i].name) == len && strncmp(presets[i].name, name, len) == 0) {
            return &presets[i];
        }
    }
    return NULL;
}

/* Defaults every system starts from before options are applied. */
static void set_system_defaults(temu_machine *m, int32_t system)
{
    memset(m, 0, sizeof *m);
    m->system = system;
    switch (system) {
    case TEMU_SYSTEM_GEMINI:
        m->ndims = 3;
        m->nodes_per_router = 2; /* 2 nodes per Gemini (Pedretti 2013, abstract) */
        m->cores_per_node = 16;
        m->threads_per_core = 1;
        m->nlinks = 7; /* X-,X+,Y-,Y+,Z-,Z+, host */
        /* MPI envelope of 48 bytes: with it a 1..16-byte message fills one
         * 64-byte PUT and 32 bytes need two (Pedretti 2013 section V.D).  The
         * PUT->GET switch lies between 4 KB and 8 KB, GET->BTE PUT between
         * 256 KB and 512 KB (same section). */
        m->protocol.mpi_header = 48;
        m->protocol.eager_limit = 8192;
        m->protocol.bte_threshold = 512 * 1024;
        break;
    case TEMU_SYSTEM_BGP:
        m->ndims = 3;
        m->nodes_per_router = 1;
        m->cores_per_node = 4;
        m->threads_per_core = 1;
        m->nlinks = 6;
        /* Rendezvous from 1200 bytes up: the BG/P MPI (DCMF) default eager
         * cutoff; our choice, configurable (doc/model.md). */
        m->protocol.eager_limit = 1200;
        break;
    case TEMU_SYSTEM_BGQ:
        m->ndims = 5;
        m->nodes_per_router = 1;
        m->cores_per_node = 16;
        m->threads_per_core = 4;
        m->nlinks = 11; /* A-..E+ and the I/O link */
        /* Eager below 4097 bytes: the __BGQ__ build of MPICH/PAMID
         * (BG/Q driver, doc/references.md, mpidi_platform.h). */
        m->protocol.eager_limit = 4097;
        break;
    default:
        break;
    }
    for (int d = 0; d < TEMU_MAX_DIMS; d++) {
        m->torus[d] = d < m->ndims ? 1 : 0;
    }
}

static int parse_system(const char *s, size_t len)
{
    if (len == 6 && strncmp(s, "gemini", 6) == 0) {
        return TEMU_SYSTEM_GEMINI;
    }
    if (len == 3 && strncmp(s, "bgp", 3) == 0) {
        return TEMU_SYSTEM_BGP;
    }
    if (len == 3 && strncmp(s, "bgq", 3) == 0) {
        return TEMU_SYSTEM_BGQ;
    }
    return 0;
}

/* Parse a decimal number occupying exactly [s, s+len). */
static int parse_uint(const char *s, size_t len, long long max, long long *out)
{
    if (len == 0 || len > 12) {
        return -1;
    }
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i])) {
            return -1;
        }
        v = v * 10 + (s[i] - '0');
    }
    if (v > max) {
        return -1;
    }
    *out = v;
    return 0;
}

static temu_status parse_shape(const char *spec, const char *s, size_t len, temu_machine *m,
                               temu_error *err)
{
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == 'x') {
            long long v;
            if (n >= TEMU_MAX_DIMS) {
                return temu_fail(err, TEMU_EINVAL, "machine spec '%s': too many dimensions", spec);
            }
            if (parse_uint(s + start, i - start, TEMU_MAX_DIM_SIZE, &v) != 0 || v < 1) {
                return temu_fail(err, TEMU_EINVAL,
                                 "machine spec '%s': dimension %d ('%.*s') must be an integer "
                                 "from 1 to %d",
                                 spec, n + 1, (int)(i - start), s + start, TEMU_MAX_DIM_SIZE);
            }
            m->size[n++] = (int32_t)v;
            start = i + 1;
        }
    }
    if (n != m->ndims) {
        return temu_fail(err, TEMU_EINVAL,
                         "machine spec '%s': %s needs %d dimensions (%s), got %d", spec,
                         temu_system_name(m->system), m->ndims,
                         m->ndims == 5 ? "AxBxCxDxE" : "XxYxZ", n);
    }
    return TEMU_OK;
}

static temu_status apply_option(const char *spec, const char *s, size_t len, temu_machine *m,
                                temu_error *err)
{
    const char *eq = memchr(s, '=', len);
    if (eq == NULL) {
        return temu_fail(err, TEMU_EINVAL, "machine spec '%s': option '%.*s' is not key=value",
                         spec, (int)len, s);
    }
    size_t klen = (size_t)(eq - s);
    const char *v = eq + 1;
    size_t vlen = len - klen - 1;
    long long num = 0;

    if (klen == 5 && strncmp(s, "torus", 5) == 0) {
        if (m->system == TEMU_SYSTEM_GEMINI) {
            return temu_fail(err, TEMU_EINVAL,
                             "machine spec '%s': Gemini systems are full tori; 'torus=' is not "
                             "accepted",
                             spec);
        }
        if (vlen != (size_t)m->ndims) {
            return temu_fail(err, TEMU_EINVAL,
                             "machine spec '%s': torus= needs one 0/1 digit per dimension (%d)",
                             spec, m->ndims);
        }
        for (int d = 0; d < m->ndims; d++) {
            if (v[d] != '0' && v[d] != '1') {
                return temu_fail(err, TEMU_EINVAL,
                                 "machine spec '%s': torus= digit '%c' is not 0 or 1", spec,
                                 v[d]);
            }
            m->torus[d] = v[d] - '0';
        }
        return TEMU_OK;
    }
    if (parse_uint(v, vlen, 1LL << 31, &num) != 0) {
        return temu_fail(err, TEMU_EINVAL,
                         "machine spec '%s': value of '%.*s' must be a non-negative integer",
                         spec, (int)klen, s);
    }
    if (klen == 5 && strncmp(s, "cores", 5) == 0) {
        if (num < 1 || num > 1024) {
            return temu_fail(err, TEMU_EINVAL, "machine spec '%s': cores must be 1..1024", spec);
        }
        m->cores_per_node = (int32_t)num;
    } else if (klen == 5 && strncmp(s, "eager", 5) == 0) {
        m->protocol.eager_limit = (uint32_t)num;
    } else if (klen == 3 && strncmp(s, "bte", 3) == 0 && m->system == TEMU_SYSTEM_GEMINI) {
        m->protocol.bte_threshold = (uint32_t)num;
    } else if (klen == 6 && strncmp(s, "header", 6) == 0 && m->system == TEMU_SYSTEM_GEMINI) {
        if (num > TEMU_GEMINI_MAX_TRANSACTION) {
            return temu_fail(err, TEMU_EINVAL, "machine spec '%s': header must be 0..64 bytes",
                             spec);
        }
        m->protocol.mpi_header = (uint32_t)num;
    } else {
        return temu_fail(err, TEMU_EINVAL, "machine spec '%s': unknown option '%.*s' for %s",
                         spec, (int)klen, s, temu_system_name(m->system));
    }
    return TEMU_OK;
}

/*
 * Deterministic routing order.  Gemini and BG/P: X, Y, Z (Pedretti 2013 V.C).
 * BG/Q: longest dimension first, where a torus dimension of n nodes counts
 * n/2 and a mesh dimension n; ties go to the mesh, then to the lower
 * dimension (BG/Q driver, doc/references.md, fw_nd.c).  Lengths are compared
 * doubled so n/2 stays exact.
 */
static void compute_dim_order(temu_machine *m)
{
    for (int d = 0; d < m->ndims; d++) {
        m->dim_order[d] = d;
    }
    if (m->system != TEMU_SYSTEM_BGQ) {
        return;
    }
    for (int i = 1; i < m->ndims; i++) {
        for (int j = i; j > 0; j--) {
            int a = m->dim_order[j - 1], b = m->dim_order[j];
            int la = m->torus[a] ? m->size[a] : 2 * m->size[a];
            int lb = m->torus[b] ? m->size[b] : 2 * m->size[b];
            int b_first = lb > la || (lb == la && !m->torus[b] && m->torus[a]) ||
                          (lb == la && m->torus[b] == m->torus[a] && b < a);
            if (!b_first) {
                break;
            }
            m->dim_order[j - 1] = b;
            m->dim_order[j] = a;
        }
    }
}

static temu_status parse_spec(const char *spec, const char *s, temu_machine *out,
                              const char *preset_name, int depth, temu_error *err)
{
    size_t len = strcspn(s, ",");
    const char *colon = memchr(s, ':', len);
    temu_status st;

    if (colon == NULL) {
        const preset *p = find_preset(s, len);
        if (p == NULL || depth > 0) {
            return temu_fail(err, TEMU_EINVAL,
                             "machine spec '%s': '%.*s' is neither SYSTEM:SHAPE (gemini:, bgp:, "
                             "bgq:) nor a preset (torusemu machine --presets)",
                             spec, (int)len, s);
        }
        st = parse_spec(spec, p->spec, out, p->name, depth + 1, err);
    } else {
        int system = parse_system(s, (size_t)(colon - s));
        if (system == 0) {
            return temu_fail(err, TEMU_EINVAL,
                             "machine spec '%s': unknown system '%.*s' (gemini, bgp or bgq)", spec,
                             (int)(colon - s), s);
        }
        const char *shape = colon + 1;
        size_t shape_len = len - (size_t)(shape - s);
        if (shape_len > 0 && !isdigit((unsigned char)shape[0])) {
            /* SYSTEM:PRESET, e.g. bgp:midplane -> bgp-midplane or midplane */
            char name[TEMU_NAME_MAX];
            const preset *p = NULL;
            if (shape_len + 5 < sizeof name) {
                snprintf(name, sizeof name, "%s-%.*s", temu_system_name(system), (int)shape_len,
                         shape);
                p = find_preset(name, strlen(name));
            }
            if (p == NULL) {
                p = find_preset(shape, shape_len);
            }
            if (p == NULL || depth > 0 || strncmp(p->spec, temu_system_name(system), 3) != 0) {
                return temu_fail(err, TEMU_EINVAL, "machine spec '%s': no %s preset '%.*s'", spec,
                                 temu_system_name(system), (int)shape_len, shape);
            }
            st = parse_spec(spec, p->spec, out, p->name, depth + 1, err);
        } else {
            set_system_defaults(out, system);
            st = parse_shape(spec, shape, shape_len, out, err);
            if (st == TEMU_OK && preset_name != NULL) {
                snprintf(out->preset, sizeof out->preset, "%s", preset_name);
            }
        }
    }
    if (st != TEMU_OK) {
        return st;
    }
    /* options after the shape or preset */
    const char *opt = s + len;
    while (*opt == ',') {
        opt++;
        size_t olen = strcspn(opt, ",");
        if (olen == 0) {
            return temu_fail(err, TEMU_EINVAL, "machine spec '%s': empty option", spec);
        }
        st = apply_option(spec, opt, olen, out, err);
        if (st != TEMU_OK) {
            return st;
        }
        opt += olen;
    }
    return TEMU_OK;
}

temu_status temu_machine_parse(const char *spec, temu_machine *out, temu_error *err)
{
    if (spec == NULL || out == NULL) {
        return temu_fail(err, TEMU_EINVAL, "machine spec missing");
    }
    if (strlen(spec) >= 256) {
        return temu_fail(err, TEMU_EINVAL, "machine spec too long (max 255 characters)");
    }
    temu_machine m;
    temu_status st = parse_spec(spec, spec, &m, NULL, 0, err);
    if (st != TEMU_OK) {
        return st;
    }
    m.nrouters = 1;
    for (int d = 0; d < m.ndims; d++) {
        m.nrouters *= m.size[d];
    }
    m.nnodes = m.nrouters * m.nodes_per_router;
    if (m.nnodes > TEMU_MAX_NODES) {
        return temu_fail(err, TEMU_EINVAL, "machine spec '%s': %lld nodes exceed the model's limit %lld",
                         spec, (long long)m.nnodes, (long long)TEMU_MAX_NODES);
    }
    compute_dim_order(&m);

    /* canonical name: system:shape plus options that differ from a preset */
    int n = snprintf(m.name, sizeof m.name, "%s:", temu_system_name(m.system));
    for (int d = 0; d < m.ndims && n < (int)sizeof m.name; d++) {
        n += snprintf(m.name + n, sizeof m.name - (size_t)n, d ? "x%d" : "%d", m.size[d]);
    }
    int all_torus = 1;
    for (int d = 0; d < m.ndims; d++) {
        all_torus &= m.torus[d];
    }
    if (!all_torus && n < (int)sizeof m.name) {
        n += snprintf(m.name + n, sizeof m.name - (size_t)n, ",torus=");
        for (int d = 0; d < m.ndims && n < (int)sizeof m.name; d++) {
            n += snprintf(m.name + n, sizeof m.name - (size_t)n, "%d", m.torus[d]);
        }
    }
    *out = m;
    return TEMU_OK;
}

int64_t temu_router_index(const temu_machine *m, const int32_t *coord)
{
    int64_t r = 0;
    for (int d = 0; d < m->ndims; d++) {
        r = r * m->size[d] + coord[d];
    }
    return r;
}

void temu_router_coords(const temu_machine *m, int64_t router, int32_t *coord)
{
    for (int d = m->ndims - 1; d >= 0; d--) {
        coord[d] = (int32_t)(router % m->size[d]);
        router /= m->size[d];
    }
}

const char *temu_link_name(const temu_machine *m, int link)
{
    static const char *xyz[] = {"X-", "X+", "Y-", "Y+", "Z-", "Z+"};
    static const char *abcde[] = {"A-", "A+", "B-", "B+", "C-", "C+", "D-", "D+", "E-", "E+"};
    if (link < 0 || link >= m->nlinks) {
        return "?";
    }
    if (link == 2 * m->ndims) {
        return m->system == TEMU_SYSTEM_GEMINI ? "HH" : "IO";
    }
    return m->system == TEMU_SYSTEM_BGQ ? abcde[link] : xyz[link];
}

int temu_link_parse(const temu_machine *m, const char *name)
{
    for (int l = 0; l < m->nlinks; l++) {
        if (strcmp(name, temu_link_name(m, l)) == 0) {
            return l;
        }
    }
    if (m->system == TEMU_SYSTEM_GEMINI && strcmp(name, "host") == 0) {
        return 2 * m->ndims;
    }
    return -1;
}

int64_t temu_link_neighbor(const temu_machine *m, int64_t router, int link)
{
    if (link < 0 || link >= 2 * m->ndims) {
        return -1;
    }
    int32_t c[TEMU_MAX_DIMS];
    int dim = link / 2;
    temu_router_coords(m, router, c);
    int step = (link & 1) ? 1 : -1;
    int v = c[dim] + step;
    if (v < 0 || v >= m->size[dim]) {
        if (!m->torus[dim]) {
            return -1;
        }
        v = (v + m->size[dim]) % m->size[dim];
    }
    if (m->size[dim] == 1) {
        return -1; /* a one-node ring has no link */
    }
    c[dim] = v;
    return temu_router_index(m, c);
}

/*
 * Cray cname from Gemini coordinates, following the geometry implied by
 * Cielo's interconnect file (lanl/PPT machine configurations, "Physical
 * naming"): cabinet column = x, cabinet row = y/2, the two Geminis of a
 * blade are Y neighbours (g = y%2), cage = z/8, slot = z%8, nodes n0,n1 on
 * g0 and n2,n3 on g1.  Real systems fold the X order; we do not.
 */
static int gemini_cname(const temu_machine *m, int64_t router, int node_in_router, char *buf,
                        size_t len)
{
    int32_t c[TEMU_MAX_DIMS];
    temu_router_coords(m, router, c);
    int g = c[1] % 2;
    if (node_in_router < 0) {
        return snprintf(buf, len, "c%d-%dc%ds%dg%d", c[0], c[1] / 2, c[2] / 8, c[2] % 8, g);
    }
    return snprintf(buf, len, "c%d-%dc%ds%dn%d", c[0], c[1] / 2, c[2] / 8, c[2] % 8,
                    2 * g + node_in_router);
}

/*
 * Blue Gene location strings R<row><col>-M<m>-N<board>-J<card>.  Midplanes
 * are numbered over the coordinates divided by the midplane shape (BG/Q
 * 4x4x4x4x2, BG/P 8x8x8), two per rack, 16 racks per row; inside a
 * midplane the node's linear index gives the node board (32 nodes) and
 * compute card.  A deterministic naming, not IBM's cabling.
 */
static int bluegene_location(const temu_machine *m, int64_t node, char *buf, size_t len)
{
    static const int32_t bgq_mid[] = {4, 4, 4, 4, 2};
    static const int32_t bgp_mid[] = {8, 8, 8};
    const int32_t *mid = m->system == TEMU_SYSTEM_BGQ ? bgq_mid : bgp_mid;
    int32_t c[TEMU_MAX_DIMS];
    int64_t midplane = 0, local = 0;
    temu_router_coords(m, node, c);
    for (int d = 0; d < m->ndims; d++) {
        int32_t per = mid[d] < m->size[d] ? mid[d] : m->size[d];
        int32_t count = (m->size[d] + per - 1) / per;
        midplane = midplane * count + c[d] / per;
        local = local * per + c[d] % per;
    }
    int64_t rack = midplane / 2;
    return snprintf(buf, len, "R%X%X-M%d-N%02d-J%02d", (int)((rack / 16) % 16), (int)(rack % 16),
                    (int)(midplane % 2), (int)(local / 32), (int)(local % 32));
}

int temu_node_name(const temu_machine *m, int64_t node, char *buf, size_t len)
{
    if (node < 0 || node >= m->nnodes) {
        return snprintf(buf, len, "?");
    }
    if (m->system == TEMU_SYSTEM_GEMINI) {
        return gemini_cname(m, node / 2, (int)(node % 2), buf, len);
    }
    return bluegene_location(m, node, buf, len);
}

int temu_router_name(const temu_machine *m, int64_t router, char *buf, size_t len)
{
    if (router < 0 || router >= m->nrouters) {
        return snprintf(buf, len, "?");
    }
    if (m->system == TEMU_SYSTEM_GEMINI) {
        return gemini_cname(m, router, -1, buf, len);
    }
    return bluegene_location(m, router, buf, len);
}

void temu_machine_describe(const temu_machine *m, FILE *f)
{
    const char *letters = system_dims(m->system);
    fprintf(f, "machine    %s", m->name);
    if (m->preset[0] != '\0') {
        fprintf(f, " (preset %s)", m->preset);
    }
    fprintf(f, "\nsystem     %s\nshape     ", system_long_name(m->system));
    for (int d = 0; d < m->ndims; d++) {
        fprintf(f, " %c=%d%s", letters[d], m->size[d], m->torus[d] ? "" : "(mesh)");
    }
    fprintf(f, "\nrouters    %lld\nnodes      %lld (%d per router), %d cores x %d threads per node\n",
            (long long)m->nrouters, (long long)m->nnodes, m->nodes_per_router, m->cores_per_node,
            m->threads_per_core);
    fprintf(f, "links     ");
    for (int l = 0; l < m->nlinks; l++) {
        fprintf(f, " %s", temu_link_name(m, l));
    }
    fprintf(f, "\nrouting    deterministic, dimension order");
    for (int d = 0; d < m->ndims; d++) {
        fprintf(f, " %c", letters[m->dim_order[d]]);
    }
    fprintf(f, "; shortest direction, ties go +\n");
    switch (m->system) {
    case TEMU_SYSTEM_GEMINI:
        fprintf(f,
                "tiles      48 per Gemini (40 network + 8 host); X and Z links 8 tiles, Y 4\n"
                "bandwidth  X 9.38 GB/s (cable); Y 9.38 (mezzanine) / 4.69 (cable); Z 15.00 "
                "(backplane) / 9.38 (cable every 8th); host 10.40\n"
                "protocol   MPI header %u B; PUT eager < %u B; GET rendezvous < %u B; BTE PUT "
                "above\n",
                m->protocol.mpi_header, m->protocol.eager_limit, m->protocol.bte_threshold);
        break;
    case TEMU_SYSTEM_BGP:
        fprintf(f, "packets    32-byte chunks, up to 256 bytes (16-byte header)\n"
                   "protocol   eager < %u B, rendezvous by remote get above\n",
                m->protocol.eager_limit);
        break;
    case TEMU_SYSTEM_BGQ:
        fprintf(f, "bandwidth  2 GB/s per link and direction, 500 MHz network clock\n"
                   "packets    32-byte header + 0..512 bytes payload in 32-byte chunks\n"
                   "protocol   eager < %u B, rendezvous by remote get above\n",
                m->protocol.eager_limit);
        break;
    default:
        break;
    }
}
