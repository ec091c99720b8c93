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

const char *temu_system_name(int32_t system)
{
    const temu_family *f = temu_family_of(system);
    return f != NULL ? f->info.name : "unknown";
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
                         temu_machine_family(m)->info.shape_form, n);
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
    uint32_t options = temu_machine_family(m)->info.spec_options;

    if (klen == 5 && strncmp(s, "torus", 5) == 0) {
        if (!(options & TEMU_SPEC_TORUS)) { /* only Gemini (full tori) */
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
    if (klen == 11 && strncmp(s, "m2m-routing", 11) == 0) {
        if (!(options & TEMU_SPEC_M2M)) {
            return temu_fail(err, TEMU_EINVAL, "machine spec '%s': unknown option '%.*s' for %s",
                             spec, (int)klen, s, temu_system_name(m->system));
        }
        /* PAMI_M2M_ROUTING of the BG/Q driver: DETERMINISTIC or the
         * default, dynamic (doc/model.md, "All-to-all on BG/Q") */
        if (vlen == 7 && strncmp(v, "dynamic", 7) == 0) {
            m->protocol.m2m_deterministic = 0;
        } else if (vlen == 13 && strncmp(v, "deterministic", 13) == 0) {
            m->protocol.m2m_deterministic = 1;
        } else {
            return temu_fail(err, TEMU_EINVAL,
                             "machine spec '%s': m2m-routing must be dynamic or deterministic, "
                             "not '%.*s'",
                             spec, (int)vlen, v);
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
    } else if (klen == 3 && strncmp(s, "bte", 3) == 0 && (options & TEMU_SPEC_BTE)) {
        m->protocol.bte_threshold = (uint32_t)num;
    } else if (klen == 6 && strncmp(s, "header", 6) == 0 && (options & TEMU_SPEC_HEADER)) {
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
 * Deterministic routing order: X, Y, Z on Gemini and BG/P (Pedretti 2013
 * V.C), unless the family orders its dimensions otherwise (BG/Q: longest
 * first, family_bgq.c).
 */
static void compute_dim_order(temu_machine *m)
{
    const temu_family *f = temu_machine_family(m);
    for (int d = 0; d < m->ndims; d++) {
        m->dim_order[d] = d;
    }
    if (f->order_dims != NULL) {
        f->order_dims(m);
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
        const temu_family *fam = temu_family_by_name(s, (size_t)(colon - s));
        if (fam == NULL) {
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
                snprintf(name, sizeof name, "%s-%.*s", fam->info.name, (int)shape_len, shape);
                p = find_preset(name, strlen(name));
            }
            if (p == NULL) {
                p = find_preset(shape, shape_len);
            }
            if (p == NULL || depth > 0 || strncmp(p->spec, fam->info.name, 3) != 0) {
                return temu_fail(err, TEMU_EINVAL, "machine spec '%s': no %s preset '%.*s'", spec,
                                 fam->info.name, (int)shape_len, shape);
            }
            st = parse_spec(spec, p->spec, out, p->name, depth + 1, err);
        } else {
            *out = fam->info.base; /* the family's defaults, before the options */
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
    if (link < 0 || link >= m->nlinks) {
        return "?";
    }
    return temu_machine_family(m)->info.link_names[link];
}

int temu_link_parse(const temu_machine *m, const char *name)
{
    for (int l = 0; l < m->nlinks; l++) {
        if (strcmp(name, temu_link_name(m, l)) == 0) {
            return l;
        }
    }
    const char *alias = temu_machine_family(m)->info.link_alias;
    if (alias != NULL && strcmp(name, alias) == 0) {
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

int temu_node_name(const temu_machine *m, int64_t node, char *buf, size_t len)
{
    if (node < 0 || node >= m->nnodes) {
        return snprintf(buf, len, "?");
    }
    return temu_machine_family(m)->name_node(m, node, buf, len);
}

int temu_router_name(const temu_machine *m, int64_t router, char *buf, size_t len)
{
    if (router < 0 || router >= m->nrouters) {
        return snprintf(buf, len, "?");
    }
    return temu_machine_family(m)->name_router(m, router, buf, len);
}

void temu_machine_describe(const temu_machine *m, FILE *f)
{
    const temu_family *fam = temu_machine_family(m);
    const char *letters = fam->info.dims;
    fprintf(f, "machine    %s", m->name);
    if (m->preset[0] != '\0') {
        fprintf(f, " (preset %s)", m->preset);
    }
    fprintf(f, "\nsystem     %s\nshape     ", fam->info.title);
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
    fam->describe(m, f);
}
