FROM denoland/deno:2.9.6

WORKDIR /app
COPY --chown=deno:deno . .

USER deno
# Fetch and cache every npm dependency (onnxruntime-web's .wasm included) into the image.
RUN deno cache cli.ts adapter/deno/main.ts

EXPOSE 8000
# A heap limit for a 512 MiB container (V8 does not see the container's limit by itself).
CMD ["deno", "run", "--v8-flags=--max-old-space-size=384", "--allow-read", "--allow-net", \
     "--allow-env", "cli.ts", "serve", "/models", "--host", "0.0.0.0", "--port", "8000"]
