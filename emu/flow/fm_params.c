/*
 * fm_params.c - the flow level's constants (fm_params.h) and its queueing
 * formulas.
 *
 * eta_inputs: Karol, Hluchyj and Morgan, "Input versus output queueing on
 * a space-division packet switch", IEEE Trans. Commun. 35(12), 1987: the
 * saturation throughput of an N x N switch with FIFO input queues and
 * uniform destinations, N = 1 .. 8 (their Table I: 1, 0.75, 0.6825,
 * 0.6553, 0.6399, 0.6302, 0.6234, 0.6184; 2 - sqrt(2) = 0.586 as N grows).
 * They derate a saturated channel fed by several input queues (the
 * "contention-derated capacity" idea, as SimGrid's non-linear sharing
 * policy derates a link by its number of flows); they are not yet
 * calibrated against the packet model (doc/model.md, "Flow level", says
 * what is and is not).
 */
#define TEMU_BUILDING_LIBRARY 1
#include "fm_params.h"

#include <math.h>

const fm_params fm_params_default = {
    .eta_inputs = {1.0, 1.0, 0.75, 0.6825, 0.6553, 0.6399, 0.6302, 0.6234, 0.6184},
    .eta_vcs = {1.0, 1.0, 1.0}, /* not calibrated: dateline classes change nothing yet */
    .rho_max = 0.98,
    /* the inverse of the geometric mean of (flow / packet model) inq stall
     * totals on the BookSim cases whose links differ and that have inq
     * stalls (4x4x4 transpose 0.44, bit reversal 0.30, shuffle 0.70, at
     * 0.85 x BookSim's saturation, tests/test_flow_booksim.c, every packet
     * a flow; tornado has none in either level): 0.452.  Leaving out one
     * pattern, the fit on the other two puts the left-out total within
     * 0.54 .. 1.93 x the packet model's. */
    .inq_scale = 1.0 / 0.452,
};

double fm_params_eta(const fm_params *p, int inputs, int mixed, int vcs)
{
    double eta = 1.0;
    if (mixed) {
        eta = p->eta_inputs[inputs < FM_ETA_INPUTS ? (inputs < 0 ? 0 : inputs) : FM_ETA_INPUTS - 1];
    }
    return eta * p->eta_vcs[vcs < 0 ? 0 : (vcs > 2 ? 2 : vcs)];
}

double fm_params_eta_least(const fm_params *p)
{
    double least = 1.0, vcs = 1.0;
    for (int i = 0; i < FM_ETA_INPUTS; i++) {
        least = p->eta_inputs[i] < least ? p->eta_inputs[i] : least;
    }
    for (int i = 0; i < 3; i++) {
        vcs = p->eta_vcs[i] < vcs ? p->eta_vcs[i] : vcs;
    }
    return least * vcs;
}

double fm_params_wait(const fm_params *p, double rho_other, double rho_total)
{
    if (!(rho_other > 0)) {
        return 0;
    }
    double rt = rho_total < p->rho_max ? rho_total : p->rho_max;
    double ro = rho_other < rt ? rho_other : rt;
    return ro / (2.0 * (1.0 - rt));
}

double fm_params_blocked(double a, double k)
{
    int slots = k >= 2 ? (int)k : 1;
    double b = 1.0;
    if (!(a > 0)) {
        return 0;
    }
    for (int i = 1; i <= slots && i <= 4096; i++) {
        b = a * b / ((double)i + a * b);
    }
    return b;
}

double fm_params_full(double z, double k)
{
    if (!(z > 0) || !(k > 0)) {
        return 0;
    }
    if (fabs(z - 1.0) < 1e-9) {
        return 1.0 / (k + 1.0);
    }
    double zk = pow(z, k);
    return (1.0 - z) * zk / (1.0 - zk * z);
}
