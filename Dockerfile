# syntax=docker/dockerfile:1
# One image for every process (api, worker, studio, the CLI); the command picks the process.
# Node 20, the one major of package.json's engines, .nvmrc, CI (.ci/run checks it) and the docs.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The workspaces' manifests (packages/client, the partner client; packages/world-engine, the
# procedural engine): npm ci installs their dependencies too. The engine's code needs no step of
# its own: `nest build` compiles it into dist/packages/world-engine from its sources (the path
# alias is rewritten to a relative import), so the runtime image's dist holds it.
COPY packages/client/package.json ./packages/client/
COPY packages/world-engine/package.json ./packages/world-engine/
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
# The test build of the studio page (window.__studio, for the browser tests) stays out of the image.
RUN npm run build && rm -rf dist/apps/studio-web-test && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# tini as PID 1: forwards SIGTERM to node (which then drains, docs/operations.md) and reaps
# zombies; node as PID 1 would ignore signals it has no handler for and never reap.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
# A fixed mmap threshold makes glibc hand large upload buffers back to the system after a burst
# instead of keeping them (measured in docs/performance.md: resting RSS 255 MiB instead of 300+).
ENV NODE_ENV=production HOST=0.0.0.0 MALLOC_MMAP_THRESHOLD_=1048576
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/scripts ./scripts
USER node
# 3000 api, 3001 studio (public); 3002 worker, 3003 api, 3004 studio ops ports (health, /metrics).
EXPOSE 3000 3001 3002 3003 3004
ENTRYPOINT ["/usr/bin/tini", "--"]
# api by default; docker-compose.yml and the Helm chart set the command of each process.
CMD ["node", "dist/apps/api/src/main.js"]
