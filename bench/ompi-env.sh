# Sourced by bench/mpi.sh and bench/mpi-ab.sh with $debs set: Open MPI from
# the carried packages (dpkg -x makes no alternatives links: orterun, not
# mpirun), on PATH and LD_LIBRARY_PATH; without them (a trial on a machine
# that has Open MPI installed), the installed one.
if ls "$debs"/openmpi-bin_*.deb >/dev/null 2>&1; then
    mkdir -p /tmp/ompi
    for f in "$debs"/*.deb; do dpkg -x "$f" /tmp/ompi; done
    OPAL_PREFIX=/tmp/ompi/usr
    PATH=/tmp/ompi/usr/bin:$PATH
    LD_LIBRARY_PATH=/tmp/ompi/usr/lib/x86_64-linux-gnu:/tmp/ompi/usr/lib/x86_64-linux-gnu/openmpi/lib:${LD_LIBRARY_PATH:-}
    export OPAL_PREFIX PATH LD_LIBRARY_PATH
fi
