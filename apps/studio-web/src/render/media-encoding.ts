import {
  BlobSource,
  BufferTarget,
  CanvasSource,
  EncodedPacketSink,
  EncodedVideoPacketSource,
  Input,
  Mp4OutputFormat,
  Output,
  Quality,
  WEBM,
  WebMOutputFormat,
  canEncodeVideo,
} from 'mediabunny';
import type { ContainerPreset } from './render-options';

/**
 * Everything that touches mediabunny (WebCodecs encoding and MP4/WebM muxing). Only ever
 * imported dynamically (render/media-loader.ts), so Vite gives it a chunk of its own that a
 * studio downloads when it first renders or finishes a take, not on load.
 */

export interface EncoderQuery {
  container: ContainerPreset;
  width: number;
  height: number;
  fps: number;
  bitrate: number;
}

/** Whether this browser's WebCodecs can encode each query (mediabunny builds the codec string). */
export function canEncode(queries: readonly EncoderQuery[]): Promise<boolean[]> {
  return Promise.all(
    queries.map((q) =>
      canEncodeVideo(q.container.codec, {
        width: q.width,
        height: q.height,
        frameRate: q.fps,
        quality: new Quality({ bitrate: q.bitrate }),
      }).catch(() => false),
    ),
  );
}

export interface VideoWriter {
  /**
   * Takes the canvas as it is now as frame `index` (timestamp index / fps, duration 1 / fps),
   * synchronously; the promise resolves when the encoder can take the next one.
   */
  add(index: number): Promise<void>;
  /** Flushes the encoder and closes the file: MP4 with its index up front, WebM with Cues and its Duration. */
  finish(): Promise<{ video: Blob; mimeType: string }>;
  /** Drops everything encoded so far; nothing is left behind. */
  cancel(): Promise<void>;
}

export async function openVideoWriter(canvas: HTMLCanvasElement, query: EncoderQuery): Promise<VideoWriter> {
  const { container, fps, bitrate } = query;
  const target = new BufferTarget();
  // A BufferTarget lets the MP4 muxer write its index (moov) before the media: the file plays
  // and seeks as soon as a player has its start. WebM gets Cues and a Duration either way.
  const format = container.id === 'mp4' ? new Mp4OutputFormat({ fastStart: 'in-memory' }) : new WebMOutputFormat();
  const output = new Output({ format, target });
  const source = new CanvasSource(canvas, {
    codec: container.codec,
    quality: new Quality({ bitrate }),
    latencyMode: 'quality',
  });
  output.addVideoTrack(source, { frameRate: fps });
  await output.start();
  return {
    add: (index) => source.add(index / fps, 1 / fps),
    async finish() {
      source.close();
      await output.finalize();
      const mimeType = await output.getMimeType();
      if (!target.buffer) throw new Error('The video file was not written.');
      return { video: new Blob([target.buffer], { type: mimeType }), mimeType };
    },
    async cancel() {
      if (output.state !== 'finalized' && output.state !== 'canceled') await output.cancel();
    },
  };
}

/**
 * MediaRecorder writes WebM as a live stream: no Duration, no Cues, so players cannot show the
 * length or seek without reading it all. This copies the packets (no re-encoding) into a WebM
 * that has both.
 */
export async function remuxWebm(video: Blob, signal: AbortSignal): Promise<Blob> {
  const input = new Input({ source: new BlobSource(video), formats: [WEBM] });
  let output: Output | null = null;
  try {
    const track = await input.getPrimaryVideoTrack();
    const codec = track?.codec;
    if (!track || !codec) throw new Error('The take has no video track mediabunny can read.');
    const decoderConfig = await track.getDecoderConfig();
    if (!decoderConfig) throw new Error("The take's video cannot be described.");
    const target = new BufferTarget();
    output = new Output({ format: new WebMOutputFormat(), target });
    const source = new EncodedVideoPacketSource(codec);
    output.addVideoTrack(source);
    await output.start();
    let first = true;
    for await (const packet of new EncodedPacketSink(track).packets()) {
      signal.throwIfAborted();
      await source.add(packet, first ? { decoderConfig } : undefined);
      first = false;
    }
    if (first) throw new Error('The take has no frames.');
    source.close();
    await output.finalize();
    if (!target.buffer) throw new Error('The take was not rewritten.');
    return new Blob([target.buffer], { type: video.type });
  } catch (e) {
    if (output && output.state !== 'finalized' && output.state !== 'canceled') await output.cancel().catch(() => undefined);
    throw e;
  } finally {
    input.dispose();
  }
}
