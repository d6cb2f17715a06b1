import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What FFmpeg (not the studio's own muxer) reads in a video file. */
export interface ProbedVideo {
  /** ffprobe's names: `mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`. */
  formatName: string;
  codec: string;
  width: number;
  height: number;
  /** Frames decoded by reading the whole stream (`-count_frames`), not a header's claim. */
  framesRead: number;
  /** The container's duration in seconds, or null when it states none. */
  durationS: number | null;
}

/**
 * Probes a video with Debian's ffprobe (apt-get install ffmpeg; .ci/run installs it), so a test
 * checks the file independently of the library that wrote it.
 */
export async function probeVideo(bytes: Buffer): Promise<ProbedVideo> {
  return withFile(bytes, async (path) => {
    const stdout = await ffprobe(
      path,
      '-count_frames',
      '-show_entries',
      'stream=codec_name,width,height,nb_read_frames:format=format_name,duration',
      '-of',
      'json',
    );
    const out = JSON.parse(stdout) as {
      streams: { codec_name: string; width: number; height: number; nb_read_frames: string }[];
      format: { format_name: string; duration?: string };
    };
    const stream = out.streams[0];
    const duration = Number(out.format.duration);
    return {
      formatName: out.format.format_name,
      codec: stream.codec_name,
      width: stream.width,
      height: stream.height,
      framesRead: Number(stream.nb_read_frames),
      durationS: Number.isFinite(duration) ? duration : null,
    };
  });
}

/** Frame `index` (0-based, in presentation order) decoded by FFmpeg, as a PNG. */
export async function decodeFrame(bytes: Buffer, index: number): Promise<Buffer> {
  return withFile(bytes, async (path) => {
    const { stdout } = await run(
      'ffmpeg',
      ['-v', 'error', '-i', path, '-vf', `select=eq(n\\,${index})`, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', '-'],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
    );
    if (stdout.length === 0) throw new Error(`ffmpeg decoded no frame ${index}`);
    return stdout;
  });
}

/** The first key frame FFmpeg lands on when asked to seek to `seconds`, read through the file's index. */
export async function seekTimestamp(bytes: Buffer, seconds: number): Promise<number> {
  return withFile(bytes, async (path) => {
    const stdout = await ffprobe(path, '-read_intervals', `${seconds}%+#1`, '-show_entries', 'frame=pts_time', '-of', 'csv=p=0');
    return Number(stdout.trim().split('\n')[0]);
  });
}

/** ffprobe's output for the file's first video stream, errors only on stderr. */
async function ffprobe(path: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', ...args, path]);
  return stdout;
}

async function withFile<T>(bytes: Buffer, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'scene-studio-video-'));
  try {
    const path = join(dir, 'video');
    await writeFile(path, bytes);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const MATROSKA_IDS: Record<number, string> = {
  0x114d9b74: 'SeekHead',
  0x1549a966: 'Info',
  0x1654ae6b: 'Tracks',
  0x1f43b675: 'Cluster',
  0x1c53bb6b: 'Cues',
  0x1254c367: 'Tags',
  0x1941a469: 'Attachments',
  0x1043a770: 'Chapters',
};

/**
 * The top-level elements of a WebM's Segment, in file order (Cluster repeated), read from the
 * EBML structure itself. A MediaRecorder file has an unknown-size Segment of Clusters and no
 * Cues; a seekable one has a Cues element and a Duration in Info.
 */
export function matroskaSegmentChildren(bytes: Buffer): string[] {
  const id = (at: number) => {
    let length = 1;
    while (length < 4 && !(bytes[at] & (0x80 >> (length - 1)))) length++;
    return { value: bytes.readUIntBE(at, length), length };
  };
  const size = (at: number) => {
    let length = 1;
    while (length < 8 && !(bytes[at] & (0x80 >> (length - 1)))) length++;
    let value = bytes[at] & (0xff >> length);
    for (let k = 1; k < length; k++) value = value * 256 + bytes[at + k];
    const unknown = value === 2 ** (7 * length) - 1;
    return { value: unknown ? Number.POSITIVE_INFINITY : value, length };
  };
  const header = id(0);
  let at = header.length;
  const headerSize = size(at);
  at += headerSize.length + headerSize.value;
  const segment = id(at);
  if (segment.value !== 0x18538067) throw new Error('not a Matroska segment');
  at += segment.length;
  at += size(at).length;
  const children: string[] = [];
  while (at < bytes.length) {
    const child = id(at);
    const childSize = size(at + child.length);
    children.push(MATROSKA_IDS[child.value] ?? child.value.toString(16));
    if (!Number.isFinite(childSize.value)) break;
    at += child.length + childSize.length + childSize.value;
  }
  return children;
}
