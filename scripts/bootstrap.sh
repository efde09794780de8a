#!/usr/bin/env bash
# The first command: install what is missing, build in Release, open the viewer on the default picture.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
exec "${GAUSSLAB_BUILD_DIR:-$root/build}/app/gausslab" "$@"
