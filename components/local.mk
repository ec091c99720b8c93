# components/local.mk - the six PAPI components, the PAPI 7.0.0 build, and
# the ctests (issue: the six PAPI components).
