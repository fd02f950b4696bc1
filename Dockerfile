# syntax=docker/dockerfile:1.7
# Build: everything comes from the npm registry; Prisma needs no engine download (the client is
# generated offline by scripts/prisma-generate.js, migrations run on the schema engine's WASM build).
FROM node:20.19-bookworm-slim AS build
WORKDIR /app
ENV CI=true NPM_CONFIG_UPDATE_NOTIFIER=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json nest-cli.json prisma.config.ts ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY src ./src
# The browser code: the dashboard (React, built by Vite into dist/web/dashboard) and the widget
# script (built by tsc into dist/web/widget), both served by the service.
COPY web ./web
# The API's generated types (from openapi.json), which the dashboard's client is typed by.
COPY examples/api-types.ts ./examples/api-types.ts
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Runtime: production dependencies, the compiled app and the migrations; runs as the unprivileged
# `node` user. Migrations are not applied here: run the one-shot `migrate` command once per deploy.
FROM node:20.19-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000
# Caps V8's old generation: uncapped, the heap grows towards the host's memory under load before
# it is collected (bench: 443 MB peak RSS). Raise it with the container's memory limit. A young
# generation of 32 MB semi-spaces (16 by default) collects the per-request garbage less often:
# about 12% less CPU per request for 32 MB more peak RSS (bench/README.md).
ENV NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=32"
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/prisma ./prisma
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
