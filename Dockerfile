# berth's container image: compiled JavaScript and production dependencies on Node 24, started by tini as a non-root user.
#
#   podman build -t berth .            (or docker build; needs RUN --mount, i.e. BuildKit or buildah)
#   podman run --rm --read-only -v ~/.kube/config:/kube/config:ro berth run --kubeconfig /kube/config
#
# Behind a TLS-intercepting proxy, give npm the proxy's CA as a build secret; it is mounted only
# while `npm ci` runs and never stored in a layer:
#   podman build --secret id=npm-ca,src=/etc/ssl/certs/ca-certificates.crt -t berth .
# Optional build arguments fill the OCI labels: VERSION, REVISION, SOURCE.

# --- production dependencies only --------------------------------------------------------------
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=npm-ca,target=/run/secrets/npm-ca,required=false \
    if [ -f /run/secrets/npm-ca ]; then export npm_config_cafile=/run/secrets/npm-ca; fi \
    && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier \
    && find node_modules -mindepth 1 -maxdepth 1 -type d -empty -delete

# --- compile, bundle and code-cache to dist/ ----------------------------------------------------
# The V8 code cache (dist/berth.cjs.cache) is valid only for the Node that made it: it is made here,
# on the same base as the runtime stage, and never copied in from a checkout built on another Node.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=npm-ca,target=/run/secrets/npm-ca,required=false \
    if [ -f /run/secrets/npm-ca ]; then export npm_config_cafile=/run/secrets/npm-ca; fi \
    && npm ci --no-audit --no-fund --no-update-notifier
COPY tsconfig.json tsconfig.build.json ./
COPY machines ./machines
COPY src ./src
COPY scripts ./scripts
COPY bin ./bin
RUN npm run build

# --- runtime ------------------------------------------------------------------------------------
FROM node:24-bookworm-slim
# tini as PID 1 forwards SIGTERM to berth and reaps orphaned children. The package managers
# are not needed at run time. A numeric user with no home and no shell runs berth.
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tini \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* \
    && rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
        /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
    && groupadd --gid 65532 berth \
    && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin berth
WORKDIR /app
COPY package.json ./
COPY bin ./bin
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN ln -s /app/bin/berth.js /usr/local/bin/berth
ENV NODE_ENV=production
# berth writes nothing but an optional --record file: a read-only root filesystem works.
USER 65532:65532
# HTTPS: /metrics (bearer token, TokenReview + SubjectAccessReview), /healthz, /livez, /readyz.
EXPOSE 10259
ENTRYPOINT ["/usr/bin/tini", "--", "berth"]
CMD ["run"]

ARG VERSION=unknown
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="berth" \
      org.opencontainers.image.description="An event-sourced Kubernetes scheduler: every decision recorded, replayable and explainable" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.base.name="docker.io/library/node:24-bookworm-slim"
