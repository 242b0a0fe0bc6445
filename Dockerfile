# gpu-breakeven: one image for the web service, the scheduler and migrations.
# Build stage: compile wheels where needed; the final image has no build tools.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY hardware ./hardware
COPY pricing ./pricing
COPY service ./service
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 breakeven
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER breakeven
WORKDIR /home/breakeven
ENV BREAKEVEN_HOST=0.0.0.0 \
    BREAKEVEN_PORT=8000 \
    BREAKEVEN_DATA_DIR=/home/breakeven/data \
    PYTHONUNBUFFERED=1
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=2).status != 200)"
CMD ["breakeven", "serve"]
