# syntax=docker/dockerfile:1
# kaito-specdec as a KRM function image, for kpt (`kpt fn eval --image`, Kptfile
# `image:`) and kustomize (`config.kubernetes.io/function: container: {image: …}`).
# Both run it as `docker run --rm -i --network none --user nobody
# --security-opt=no-new-privileges IMAGE` with the ResourceList on stdin.
#
#   docker build -t ghcr.io/kaito-project/kaito-specdec:0.1.0 .
ARG PYTHON_IMAGE=python:3.12-slim

# --- build: a wheel of kaito-specdec and wheels of its dependencies ---------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
COPY pyproject.toml README.md ./
COPY krm_fn/ ./krm_fn/
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

# --- function: the wheels installed into a slim Python, nothing else ---------
FROM ${PYTHON_IMAGE} AS function
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="kaito-specdec" \
      org.opencontainers.image.description="KRM function: KAITO speculative decoding (vLLM speculative-config) at render time for kpt, kustomize, Argo CD and Flux" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/kaito-project/kaito-specdec"
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links=/wheels kaito-specdec \
 && kaito-specdec --version
# nobody: what kpt and kustomize pass with --user anyway.
USER 65534:65534
WORKDIR /
# Exec form: no shell at run time. No arguments = KRM function mode (stdin → stdout).
ENTRYPOINT ["kaito-specdec"]
