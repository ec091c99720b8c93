/*
 * torus_table.c - name <-> code, qualifiers and enumeration over a
 * generated torus_table (see torus_table.h for the code layout).
 */
#include "torus_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int64_t qual_card(const torus_qual_def *q)
{
    return q->max - q->min + 1;
}

/* Instance space of an event: product over its qualifiers of (values + 1). */
static uint64_t inst_space(const torus_table *t, const torus_event_def *ev)
{
    uint64_t v = 1;
    for (int q = 0; q < t->nquals; q++) {
        if ((ev->qmask >> q) & 1u) {
            v *= (uint64_t)qual_card(&t->quals[q]) + 1;
        }
    }
    return v;
}

int torus_table_check(const torus_table *t, char *why, size_t len)
{
    int rc = TORUS_OK;
    if (t->nquals > TORUS_MAX_QUALS) {
        snprintf(why, len, "%s: %d qualifiers, at most %d", t->component, t->nquals,
                 TORUS_MAX_QUALS);
        return TORUS_EINVAL;
    }
    if (t->nevents < 1 || t->nevents > (int)TORUS_INDEX_MASK + 1) {
        snprintf(why, len, "%s: %d events do not fit the event code", t->component, t->nevents);
        return TORUS_EINVAL;
    }
    for (int i = 0; i < t->nevents && rc == TORUS_OK; i++) {
        const torus_event_def *ev = &t->events[i];
        if (ev->qmask >> t->nquals != 0) {
            snprintf(why, len, "%s: %s accepts an undefined qualifier", t->component, ev->name);
            rc = TORUS_EINVAL;
        } else if (inst_space(t, ev) > (1u << TORUS_INST_BITS)) {
            snprintf(why, len, "%s: %s has too many qualifier combinations", t->component,
                     ev->name);
            rc = TORUS_EINVAL;
        } else if (ev->descr == NULL || ev->descr[0] == '\0' || ev->units == NULL ||
                   ev->units[0] == '\0' || ev->short_descr == NULL ||
                   ev->short_descr[0] == '\0') {
            snprintf(why, len, "%s: %s lacks a description or units", t->component, ev->name);
            rc = TORUS_EINVAL;
        }
        for (int j = 0; j < i && rc == TORUS_OK; j++) {
            if (strcasecmp(t->events[j].name, ev->name) == 0) {
                snprintf(why, len, "%s: %s is defined twice", t->component, ev->name);
                rc = TORUS_EINVAL;
            }
        }
        if (ev->klass == TORUS_CLASS_DERIVED) {
            for (int k = 0; k < ev->nterms && rc == TORUS_OK; k++) {
                int ti = ev->first_term + k;
                int b = ti < t->nterms ? t->terms[ti].event : -1;
                if (b < 0 || b >= t->nevents || t->events[b].klass == TORUS_CLASS_DERIVED) {
                    snprintf(why, len, "%s: %s has a term that is not a base event", t->component,
                             ev->name);
                    rc = TORUS_EINVAL;
                }
            }
            if (ev->nterms < 1 || ev->div < 1) {
                snprintf(why, len, "%s: %s has an empty formula or a bad divisor", t->component,
                         ev->name);
                rc = TORUS_EINVAL;
            }
        }
    }
    return rc;
}

/* The radix puts the last qualifier in the lowest digit, so enumeration
 * of ":n:m" runs m fastest. */
int torus_table_encode(const torus_table *t, int index, const torus_qvals *q, unsigned *code)
{
    const torus_event_def *ev;
    uint64_t inst = 0, mult = 1;
    if (index < 0 || index >= t->nevents) {
        return TORUS_ENOEVNT;
    }
    ev = &t->events[index];
    for (int k = t->nquals - 1; k >= 0; k--) {
        const torus_qual_def *qd = &t->quals[k];
        if (!((ev->qmask >> k) & 1u)) {
            if (torus_qset(q, k)) {
                return TORUS_EINVAL;
            }
            continue;
        }
        if (torus_qset(q, k)) {
            if (q->v[k] < qd->min || q->v[k] > qd->max) {
                return TORUS_EINVAL;
            }
            inst += (uint64_t)(q->v[k] - qd->min + 1) * mult;
        }
        mult *= (uint64_t)qual_card(qd) + 1;
    }
    *code = ((unsigned)index << TORUS_INST_BITS) | (unsigned)inst;
    return TORUS_OK;
}

int torus_table_decode(const torus_table *t, unsigned code, torus_pick *out)
{
    int index = (int)((code >> TORUS_INST_BITS) & TORUS_INDEX_MASK);
    uint64_t inst = code & TORUS_INST_MASK;
    unsigned pos_mask = 0, pos;
    if (index >= t->nevents || (code & ~(TORUS_LISTED | TORUS_INST_MASK |
                                         (TORUS_INDEX_MASK << TORUS_INST_BITS))) != 0) {
        return TORUS_ENOEVNT;
    }
    memset(out, 0, sizeof *out);
    out->code = code & ~TORUS_LISTED;
    out->index = index;
    out->ev = &t->events[index];
    for (int k = t->nquals - 1; k >= 0; k--) {
        const torus_qual_def *qd = &t->quals[k];
        uint64_t radix;
        if (!((out->ev->qmask >> k) & 1u)) {
            continue;
        }
        radix = (uint64_t)qual_card(qd) + 1;
        if (inst % radix != 0) {
            out->q.set |= 1u << k;
            out->q.v[k] = qd->min + (int64_t)(inst % radix) - 1;
        }
        inst /= radix;
    }
    if (inst != 0) {
        return TORUS_ENOEVNT;
    }
    /* positional qualifiers exist all together or not at all */
    for (int k = 0; k < t->nquals; k++) {
        if (t->quals[k].positional && ((out->ev->qmask >> k) & 1u)) {
            pos_mask |= 1u << k;
        }
    }
    pos = out->q.set & pos_mask;
    return (pos == 0 || pos == pos_mask) ? TORUS_OK : TORUS_ENOEVNT;
}

int torus_qual_format(const torus_qual_def *q, int64_t v, char *buf, size_t len)
{
    if (q->values != NULL && v >= 0 && v < q->nvalues) {
        return snprintf(buf, len, "%s", q->values[v]);
    }
    if (q->hex) {
        return snprintf(buf, len, "0x%llx", (unsigned long long)v);
    }
    return snprintf(buf, len, "%lld", (long long)v);
}

static int parse_value(const torus_qual_def *qd, const char *s, int64_t *v)
{
    char *end;
    long long x;
    if (*s == '\0') {
        return TORUS_EINVAL;
    }
    if (qd->values != NULL) {
        for (int i = 0; i < qd->nvalues; i++) {
            if (strcasecmp(qd->values[i], s) == 0) {
                *v = i;
                return TORUS_OK;
            }
        }
        return TORUS_EINVAL;
    }
    errno = 0;
    x = strtoll(s, &end, 0);
    if (errno != 0 || *end != '\0' || x < qd->min || x > qd->max) {
        return TORUS_EINVAL;
    }
    *v = x;
    return TORUS_OK;
}

static int find_base(const torus_table *t, const char *name, size_t n)
{
    for (int i = 0; i < t->nevents; i++) {
        const char *e = t->events[i].name;
        if (strlen(e) == n && strncasecmp(e, name, n) == 0) {
            return i;
        }
    }
    return -1;
}

/* Apply one ":token" of a name to q. */
static int apply_token(const torus_table *t, const torus_event_def *ev, const char *tok,
                       torus_qvals *q, int *next_pos)
{
    const char *eq = strchr(tok, '=');
    int k = -1;
    if (eq != NULL) {
        for (int i = 0; i < t->nquals; i++) {
            size_t n = (size_t)(eq - tok);
            if (strlen(t->quals[i].name) == n && strncasecmp(t->quals[i].name, tok, n) == 0) {
                k = i;
            }
        }
        tok = eq + 1;
    } else {
        for (int i = *next_pos; i < t->nquals && k < 0; i++) {
            if (t->quals[i].positional && ((ev->qmask >> i) & 1u)) {
                k = i;
                *next_pos = i + 1;
            }
        }
    }
    if (k < 0 || !((ev->qmask >> k) & 1u) || torus_qset(q, k)) {
        return TORUS_EINVAL;
    }
    if (parse_value(&t->quals[k], tok, &q->v[k]) != TORUS_OK) {
        return TORUS_EINVAL;
    }
    q->set |= 1u << k;
    return TORUS_OK;
}

int torus_table_lookup(const torus_table *t, const char *name, unsigned *code)
{
    char tok[128];
    const char *p, *colon;
    torus_qvals q;
    int index, next_pos = 0, rc = TORUS_OK;
    unsigned pos_mask = 0;

    if (name == NULL) {
        return TORUS_ENOEVNT;
    }
    if ((p = strstr(name, ":::")) != NULL) {
        name = p + 3;
    }
    colon = strchr(name, ':');
    index = find_base(t, name, colon != NULL ? (size_t)(colon - name) : strlen(name));
    if (index < 0) {
        return TORUS_ENOEVNT;
    }
    memset(&q, 0, sizeof q);
    p = colon;
    while (p != NULL && rc == TORUS_OK) {
        const char *end = strchr(p + 1, ':');
        size_t n = end != NULL ? (size_t)(end - p - 1) : strlen(p + 1);
        if (n == 0 || n >= sizeof tok) {
            rc = TORUS_EINVAL;
        } else {
            memcpy(tok, p + 1, n);
            tok[n] = '\0';
            rc = apply_token(t, &t->events[index], tok, &q, &next_pos);
        }
        p = end;
    }
    /* positional qualifiers come all together or not at all */
    for (int k = 0; k < t->nquals; k++) {
        if (t->quals[k].positional && ((t->events[index].qmask >> k) & 1u)) {
            pos_mask |= 1u << k;
        }
    }
    if (rc == TORUS_OK && (q.set & pos_mask) != 0 && (q.set & pos_mask) != pos_mask) {
        rc = TORUS_EINVAL;
    }
    if (rc == TORUS_OK) {
        rc = torus_table_encode(t, index, &q, code);
    }
    return rc;
}

int torus_table_name(const torus_table *t, unsigned code, char *buf, size_t len)
{
    torus_pick pk;
    size_t used;
    if (torus_table_decode(t, code, &pk) != TORUS_OK) {
        return TORUS_ENOEVNT;
    }
    used = (size_t)snprintf(buf, len, "%s", pk.ev->name);
    for (int k = 0; k < t->nquals && used < len; k++) {
        char v[64];
        if (!torus_qset(&pk.q, k)) {
            continue;
        }
        torus_qual_format(&t->quals[k], pk.q.v[k], v, sizeof v);
        if (t->quals[k].positional) {
            used += (size_t)snprintf(buf + used, len - used, ":%s", v);
        } else {
            used += (size_t)snprintf(buf + used, len - used, ":%s=%s", t->quals[k].name, v);
        }
    }
    return used < len ? TORUS_OK : TORUS_EINVAL;
}

/* Append src to buf at *used with every "{}" replaced by value. */
static void put_filled(char *buf, size_t len, size_t *used, const char *src, const char *value)
{
    for (const char *p = src; *p != '\0' && *used + 1 < len; p++) {
        if (p[0] == '{' && p[1] == '}') {
            *used += (size_t)snprintf(buf + *used, len - *used, "%s", value);
            p++;
        } else {
            buf[(*used)++] = *p;
        }
        if (*used >= len) {
            *used = len - 1;
        }
    }
    buf[*used] = '\0';
}

size_t torus_qual_describe(const torus_qual_def *q, int64_t v, char *buf, size_t len)
{
    char val[64];
    size_t used = 0;
    if (len == 0) {
        return 0;
    }
    buf[0] = '\0';
    torus_qual_format(q, v, val, sizeof val);
    if (q->value_descr != NULL && v >= 0 && v < q->nvalues) {
        put_filled(buf, len, &used, q->value_descr[v], val);
        return used;
    }
    put_filled(buf, len, &used, q->descr, val);
    if (q->bits != NULL) {
        const char *sep = " = ";
        for (int b = q->nbits - 1; b >= 0; b--) {
            if (((uint64_t)v >> b) & 1u) {
                put_filled(buf, len, &used, sep, val);
                put_filled(buf, len, &used, q->bits[b], val);
                sep = " + ";
            }
        }
    }
    return used;
}

int torus_table_describe(const torus_table *t, unsigned code, char *buf, size_t len)
{
    torus_pick pk;
    size_t used;
    const char *sep = " masks:";
    if (torus_table_decode(t, code, &pk) != TORUS_OK) {
        return TORUS_ENOEVNT;
    }
    used = (size_t)snprintf(buf, len, "%s", pk.ev->descr);
    for (int k = 0; k < t->nquals && used < len; k++) {
        if (!torus_qset(&pk.q, k)) {
            continue;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s", sep);
        if (used < len) {
            used += torus_qual_describe(&t->quals[k], pk.q.v[k], buf + used, len - used);
        }
        sep = "; ";
    }
    return TORUS_OK;
}

/* Is this instance one that PAPI_NTV_ENUM_UMASKS lists? */
static int listed(const torus_table *t, const torus_pick *pk)
{
    unsigned pos = 0, named = 0, all_pos = 0;
    for (int k = 0; k < t->nquals; k++) {
        if (!((pk->ev->qmask >> k) & 1u)) {
            continue;
        }
        if (t->quals[k].positional) {
            all_pos |= 1u << k;
            pos |= pk->q.set & (1u << k);
        } else {
            named |= pk->q.set & (1u << k);
        }
    }
    if (named == 0) {
        return pos != 0 && pos == all_pos;
    }
    if (pos != 0 || (named & (named - 1u)) != 0) {
        return 0;
    }
    for (int k = 0; k < t->nquals; k++) {
        if ((named >> k) & 1u) {
            return qual_card(&t->quals[k]) <= 64 || pk->q.v[k] == t->quals[k].dflt;
        }
    }
    return 0;
}

int torus_table_enum(const torus_table *t, unsigned *code, int modifier)
{
    int index = (int)((*code >> TORUS_INST_BITS) & TORUS_INDEX_MASK);
    switch (modifier) {
    case TORUS_ENUM_FIRST:
        *code = 0;
        return TORUS_OK;
    case TORUS_ENUM_EVENTS:
        if (index + 1 >= t->nevents) {
            return TORUS_ENOEVNT;
        }
        *code = (unsigned)(index + 1) << TORUS_INST_BITS;
        return TORUS_OK;
    case TORUS_ENUM_UMASKS: {
        uint64_t space;
        if (index >= t->nevents) {
            return TORUS_ENOEVNT;
        }
        space = inst_space(t, &t->events[index]);
        for (uint64_t i = (*code & TORUS_INST_MASK) + 1; i < space; i++) {
            torus_pick pk;
            unsigned c = ((unsigned)index << TORUS_INST_BITS) | (unsigned)i;
            if (torus_table_decode(t, c, &pk) == TORUS_OK && listed(t, &pk)) {
                *code = c | TORUS_LISTED;
                return TORUS_OK;
            }
        }
        return TORUS_ENOEVNT;
    }
    default:
        return TORUS_EINVAL;
    }
}
