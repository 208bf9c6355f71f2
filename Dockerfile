# One image for every Lattice role: `docker run IMAGE start ROLE [--env ENV]` (or any other
# `lattice` command: migrate, topics, bootstrap, secrets …). infra/docker-compose.platform.yml
# runs the whole platform from it.
#
# The project pins Node 26.10.0 (package.json engines, and the `node` devDependency that
# `npm start` uses on a host); the image starts from that exact Node instead, so the devDependency
# is left out with the other development tools.
ARG NODE_VERSION=26.10.0

# Only the package manifests, so the dependency layer below is rebuilt when they change, not on
# every source edit.
FROM node:${NODE_VERSION}-bookworm-slim AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
  && find . -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \;

FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
COPY package-lock.json ./
# Runtime dependencies only (tsx included: `lattice` runs the TypeScript sources through it).
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
WORKDIR /app
COPY --from=deps /app ./
COPY . .
# LATTICE_DATA_DIR of the compose file; a volume mounted here keeps this owner.
RUN mkdir -p /var/lib/lattice && chown node:node /var/lib/lattice
USER node
# Node itself, not npm, is process 1: SIGTERM reaches `lattice start`, which drains and stops.
ENTRYPOINT ["node", "services/cli/bin/lattice.js"]
CMD ["--help"]
