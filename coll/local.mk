# coll/local.mk - the collective library (libtoruscoll): MPI collectives
# decomposed into the point-to-point messages the emulated machine's MPI
# sent (coll.c, pure) and BG/Q collective class routes (classroute.c).
# Included by Makefile.am.
#
# A convenience library with hidden symbols, linked into the two libraries
# that use it -- libtorusemu (the replay engine, emu/replay.c) and
# libtorusemu_mpi (the live layer, mpi/acct_coll.c) -- and into its unit
# tests, so a replay and a live run decompose a collective with the same
# code.  It depends on the public headers (include/) only.
noinst_LTLIBRARIES += coll/libtoruscoll.la
coll_libtoruscoll_la_SOURCES = coll/coll.h coll/coll.c coll/classroute.h coll/classroute.c
coll_libtoruscoll_la_CFLAGS = $(AM_CFLAGS) -O2
# where its users find coll.h and classroute.h
TCOLL_CPPFLAGS = -I$(top_srcdir)/coll
