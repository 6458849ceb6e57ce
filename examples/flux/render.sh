#!/usr/bin/env bash
# Render a kustomize overlay through kaito-specdec, for Flux: kustomize-controller
# runs no KRM functions, so the speculative config is materialized in CI and the
# result is committed or pushed as an OCI artifact.
#
#   render.sh OVERLAY [OUTPUT]        OUTPUT defaults to "-" (stdout)
#
# KUSTOMIZE overrides the build command (default: `kustomize build` when a
# standalone kustomize is on PATH, else `kubectl kustomize`). Settings reach
# kaito-specdec through KAITO_SPECDEC_MODE / KAITO_SPECDEC_FAIL_ON.
# Exits non-zero, leaving OUTPUT untouched, when kustomize or kaito-specdec fails.
set -euo pipefail

overlay="${1:?usage: render.sh OVERLAY [OUTPUT]}"
out="${2:--}"

if [ -n "${KUSTOMIZE:-}" ]; then
  read -r -a build <<<"${KUSTOMIZE}"
elif command -v kustomize >/dev/null 2>&1; then
  build=(kustomize build)
else
  build=(kubectl kustomize)
fi

tmp="$(mktemp)"
built="$(mktemp)"
trap 'rm -f "${tmp}" "${built}"' EXIT

# Build first: a failed build stops here with kustomize's own error, and kaito-specdec never adds a
# second, misleading one about its empty input.
"${build[@]}" "${overlay}" >"${built}"
kaito-specdec render - <"${built}" >"${tmp}"

if [ ! -s "${tmp}" ]; then
  echo "render.sh: ${overlay} rendered to nothing; refusing to write an empty stream" >&2
  exit 1
fi

if [ "${out}" = "-" ]; then
  cat "${tmp}"
else
  mkdir -p "$(dirname "${out}")"
  cat "${tmp}" >"${out}.partial"  # a new file: the umask decides its mode (cp of mktemp would be 0600)
  mv "${out}.partial" "${out}"
fi
