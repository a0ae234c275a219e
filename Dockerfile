# The Gas City supervisor: `docker build -t gascity .` (docker-compose.yml runs it next to NATS).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    GC_HOME=/data/gc
WORKDIR /app
COPY package.json package-lock.json ./
# Runtime dependencies only: the compiler and test tools stay in the build stage.
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# /cities is the cities' root (docker-compose.yml mounts a named volume there): a city created elsewhere
# in the container lives in its writable layer and is lost with it.
RUN mkdir -p /data/gc /cities && chown -R node:node /data /cities
USER node
VOLUME ["/data/gc", "/cities"]
EXPOSE 8372
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=12 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8372/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/gc.js", "supervisor", "run", "--bind", "0.0.0.0"]
