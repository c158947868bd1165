#!/usr/bin/env bash
# Packs the project for the H100 machine (../shared/device/pack.sh: Node.js, dist/, production
# dependencies) and adds the development dependencies the test suite loads, which pack.sh's
# `npm ci --omit=dev` leaves out: fast-check and its pure-rand, and typescript (the docs examples
# and the import rule read sources with it). Then compresses the app into .device/main/app.tar.xz, beside Node.js and an
# env.sh that unpacks both, for `run` with carry [".device/main"] (64 MiB at most travel).
# Usage, from the project root: bash scripts/device-pack.sh
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
rm -rf .device/app
../shared/device/pack.sh
for dep in fast-check pure-rand typescript; do cp -r "node_modules/$dep" .device/app/node_modules/; done
# the docs' samples run there too (test/docs/examples.test.ts reads README.md and docs/)
cp -r README.md docs .device/app/
mkdir -p .device/main
tar cf - -C .device app | xz -T0 -6 > .device/main/app.tar.xz
[ -s .device/main/node.xz ] || cp .device/node.xz .device/main/node.xz
# sourced on the device machine from the repository root: Node.js on PATH, the app in /tmp/app, and
# fplll's tools on PATH where .device/main/fplll.tar.xz was put (optional: the cross-checks skip)
# the commit the bench reports name (the device copy has no .git)
dirty=$(git status --porcelain --untracked-files=no)
commit=$(git rev-parse --short HEAD)${dirty:+ + uncommitted changes}
cat > .device/main/env.sh <<'ENV'
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -x /tmp/node-bin/node ] || { mkdir -p /tmp/node-bin && xz -dc "$here/node.xz" > /tmp/node-bin/node && chmod +x /tmp/node-bin/node; }
rm -rf /tmp/app && tar xJf "$here/app.tar.xz" -C /tmp
if [ -s "$here/fplll.tar.xz" ]; then mkdir -p /tmp/fplll && tar xJf "$here/fplll.tar.xz" -C /tmp/fplll; fi
export PATH=/tmp/node-bin:/tmp/fplll:$PATH LD_LIBRARY_PATH=/tmp/fplll${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ENV
echo "export LATTICE_MIMO_COMMIT='$commit'" >> .device/main/env.sh
du -h .device/main/app.tar.xz | sed 's/^/app: /'
# then: run with carry [".device/main"] and a command starting
#   source .device/main/env.sh && cd /tmp/app && ...
