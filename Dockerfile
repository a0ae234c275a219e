# The Gas City supervisor: `docker build -t gascity .` (docker-compose.yml runs it next to NATS).
# The base is a build argument so a machine that cannot pull it can build on one of its own
# (test/compose/ builds one from Debian's packages); any Node 20.19+ image with npm and a `node` user works.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The emitted JavaScript only: type checking is CI's (`npm run typecheck`), and skipping it here halves
# the build on a small machine.
RUN npm run build -- --noCheck
# Runtime dependencies only: the compiler and test tools stay in this stage.
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# What `/health` reports as build_id (an image has no .git to read it from).
ARG GC_BUILD_ID=
ENV NODE_ENV=production \
    GC_HOME=/data/gc \
    GC_BUILD_ID=${GC_BUILD_ID}
WORKDIR /app
# Everything the supervisor and `gc` read at run time, and nothing else: package.json (oclif's command
# table), the production node_modules, the compiled code, the launchers and mock agents in bin/, and the
# dashboard's files in web/ (served as they are). test/compose/ proves the image fails without one.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY web ./web
# /cities is the cities' root (docker-compose.yml mounts a named volume there): a city created elsewhere
# in the container lives in its writable layer and is lost with it.
RUN mkdir -p /data/gc /cities && chown -R node:node /data /cities
USER node
VOLUME ["/data/gc", "/cities"]
EXPOSE 8372
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=12 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8372/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/gc.js", "supervisor", "run", "--bind", "0.0.0.0"]
