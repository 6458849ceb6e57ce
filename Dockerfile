# syntax=docker/dockerfile:1
# kaito-specdec as a KRM function image, for kpt (`kpt fn eval --image`, Kptfile
# `image:`) and kustomize (`config.kubernetes.io/function: container: {image: …}`).
# Both run it as `docker run --rm -i --network none --user nobody
# --security-opt=no-new-privileges IMAGE` with the ResourceList on stdin.
#
#   docker build -t ghcr.io/kaito-project/kaito-specdec:0.1.0 .
#
# A second target is the Argo CD Config Management Plugin sidecar (examples/argocd/):
#   docker build --target argocd-cmp -t ghcr.io/kaito-project/kaito-specdec-cmp:0.1.0 .
#
# Reproducible: base images pinned by digest (the tag stays for people), Python packages by hash
# (requirements/*.txt, `pip install --require-hashes`). Bump a base image by pulling the new tag and
# replacing both tag and digest.
# python:3.12-slim, the multi-arch index digest.
ARG PYTHON_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea
# kustomize for the sidecar, as promoted to registry.k8s.io (kubernetes/k8s.io:
# registry.k8s.io/images/k8s-staging-kustomize/images.yaml; v5.5.0 was never promoted there).
ARG KUSTOMIZE_IMAGE=registry.k8s.io/kustomize/kustomize:v5.6.0@sha256:b5f56e6becd1ba93a1a775a149763e3841a177beb10191624100bed81b44d297

FROM ${KUSTOMIZE_IMAGE} AS kustomize

# --- build: the project's wheel (pinned build backend, no isolation) and the pinned dependency wheels ---
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY requirements/ ./requirements/
RUN pip install --no-cache-dir --require-hashes --only-binary=:all: -r requirements/build.txt \
 && pip download --no-cache-dir --require-hashes --only-binary=:all: --no-deps --dest /wheels \
        -r requirements/runtime.txt
COPY pyproject.toml README.md LICENSE ./
COPY krm_fn/ ./krm_fn/
RUN pip wheel --no-cache-dir --no-deps --no-build-isolation --no-index --wheel-dir /wheels .

# --- argocd-cmp: the sidecar — the function, a pinned standalone kustomize (kubectl's built-in one cannot
# run exec functions), git and ssh for remote bases, and plugin.yaml, as uid 999 with argocd-cmp-server (shared by the repo-server's
# var-files volume) as its entrypoint. Before the function stage, so a plain build gives the function.
FROM ${PYTHON_IMAGE} AS argocd-cmp
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="kaito-specdec-cmp" \
      org.opencontainers.image.description="Argo CD config management plugin sidecar: kustomize build | kaito-specdec render" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/kaito-project/kaito-specdec"
# No .pyc writes at run time: a read-only root filesystem is fine. Every start must still find bytecode:
# the base image deletes every *.pyc under /usr/local (the official python images do, to save space), so
# without the compileall below the standard library would be compiled from source on every run, and
# PYTHONDONTWRITEBYTECODE (which only stops writing; reading .pyc is untouched) would keep it that way.
# compileall writes regardless of that variable. unchecked-hash: the .pyc is used without looking at the
# source's mtime or hash, right for an image nobody edits (and immune to layer tools that reset mtimes).
# No PYTHONUNBUFFERED: the output is written whole and checked, stderr is line-buffered anyway.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    HOME=/home/argocd
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    --mount=type=bind,from=build,source=/src/requirements,target=/requirements \
    pip install --no-cache-dir --no-index --find-links=/wheels --require-hashes --only-binary=:all: \
        -r /requirements/runtime.txt \
 && pip install --no-cache-dir --no-index --no-deps /wheels/kaito_specdec-*.whl \
 && python -m compileall -q -j 0 --invalidation-mode unchecked-hash \
        "$(python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')" \
 && groupadd --gid 999 argocd \
 && useradd --uid 999 --gid 999 --home-dir /home/argocd --create-home --shell /usr/sbin/nologin argocd
# git and ssh: kustomize fetches remote bases (`resources: [https://github.com/org/repo//deploy?ref=v1]`, or
# `git@github.com:…` over ssh) by running git. From Debian's archive at build time: not pinned like the rest.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && git --version && ssh -V
COPY --from=kustomize /app/kustomize /usr/local/bin/kustomize
COPY --chown=999:999 examples/argocd/plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
RUN kustomize version && kaito-specdec --version
USER 999
WORKDIR /home/argocd
ENTRYPOINT ["/var/run/argocd/argocd-cmp-server"]

# --- function: the wheels installed into a slim Python, nothing else ---------
FROM ${PYTHON_IMAGE} AS function
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="kaito-specdec" \
      org.opencontainers.image.description="KRM function: KAITO speculative decoding (vLLM speculative-config) at render time for kpt, kustomize, Argo CD and Flux" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/kaito-project/kaito-specdec"
# No .pyc writes at run time: a read-only root filesystem is fine. Every start must still find bytecode:
# the base image deletes every *.pyc under /usr/local (the official python images do, to save space), so
# without the compileall below the standard library would be compiled from source on every run, and
# PYTHONDONTWRITEBYTECODE (which only stops writing; reading .pyc is untouched) would keep it that way.
# compileall writes regardless of that variable. unchecked-hash: the .pyc is used without looking at the
# source's mtime or hash, right for an image nobody edits (and immune to layer tools that reset mtimes).
# No PYTHONUNBUFFERED: the output is written whole and checked, stderr is line-buffered anyway.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    --mount=type=bind,from=build,source=/src/requirements,target=/requirements \
    pip install --no-cache-dir --no-index --find-links=/wheels --require-hashes --only-binary=:all: \
        -r /requirements/runtime.txt \
 && pip install --no-cache-dir --no-index --no-deps /wheels/kaito_specdec-*.whl \
 && python -m compileall -q -j 0 --invalidation-mode unchecked-hash \
        "$(python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')" \
 && kaito-specdec --version
# nobody: what kpt and kustomize pass with --user anyway.
USER 65534:65534
WORKDIR /
# Exec form: no shell at run time. No arguments = KRM function mode (stdin → stdout).
ENTRYPOINT ["kaito-specdec"]
