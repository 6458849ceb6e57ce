#!/bin/sh
# kaito-specdec render - as a Helm 4 post-renderer. Helm 4 reports a failed post-renderer without the
# stderr it wrote, so the findings are also kept in a file whose name the failure then shows:
# KAITO_SPECDEC_HELM_LOG, default kaito-specdec-helm.log in the working directory.
log="${KAITO_SPECDEC_HELM_LOG:-kaito-specdec-helm.log}"
errors="$(mktemp)" || exit 1
trap 'rm -f "${errors}"' EXIT
kaito-specdec render - 2>"${errors}"
status=$?
cat "${errors}" >&2
if [ "${status}" -ne 0 ]; then
  cp "${errors}" "${log}"
  echo "kaito-specdec failed (exit ${status}); its findings are in ${log}" >&2
fi
exit "${status}"
