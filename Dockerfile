# syntax=docker/dockerfile:1
# Multi-stage: build with the toolchain (better-sqlite3 compiles), run as a non-root user.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bin ./bin
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    AGENTD_DATA_DIR=/data \
    HOME=/home/agentd
RUN groupadd --system agentd && useradd --system --gid agentd --create-home --home-dir /home/agentd agentd \
 && mkdir -p /data /workspace && chown agentd:agentd /data /workspace
WORKDIR /app
COPY --from=build --chown=agentd:agentd /app/package.json ./
COPY --from=build --chown=agentd:agentd /app/node_modules ./node_modules
COPY --from=build --chown=agentd:agentd /app/dist ./dist
COPY --from=build --chown=agentd:agentd /app/bin ./bin
USER agentd
VOLUME ["/data"]
EXPOSE 8080
# Listening beyond loopback requires bearer tokens (AGENTD_TOKENS) unless --insecure is given.
ENTRYPOINT ["node", "/app/bin/agentd.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
