import { ImageHeader, ImageMedia } from '@app/image-assets';

/**
 * ImageMedia for unit specs: no sharp. Thumbnails are made of the given colours in the given
 * shares (the first colour fills the first share of the pixels, and so on); textures are a few
 * recognisable bytes. Calls are recorded so specs can check what the generator asked for.
 */
export class FakeImageMedia extends ImageMedia {
  readonly calls: string[] = [];
  failWith: Error | null = null;

  constructor(private readonly colors: Array<{ rgb: [number, number, number]; share: number }> = [{ rgb: [40, 90, 160], share: 1 }]) {
    super();
  }

  readHeader(): Promise<ImageHeader> {
    throw new Error('not used by generation');
  }

  decodeFully(): Promise<void> {
    throw new Error('not used by generation');
  }

  upright(): Promise<Buffer> {
    throw new Error('not used by generation');
  }

  async thumbnail(_bytes: Buffer, width: number, height: number): Promise<{ rgb: Buffer; width: number; height: number }> {
    this.calls.push(`thumbnail ${width}x${height}`);
    if (this.failWith) throw this.failWith;
    const n = width * height;
    const rgb = Buffer.alloc(n * 3);
    let at = 0;
    for (const { rgb: c, share } of this.colors) {
      const end = Math.min(n, at + Math.round(share * n));
      for (; at < end; at++) rgb.set(c, at * 3);
    }
    for (; at < n; at++) rgb.set(this.colors[this.colors.length - 1].rgb, at * 3);
    return { rgb, width, height };
  }

  async texture(_bytes: Buffer, maxWidth: number): Promise<{ bytes: Buffer; width: number; height: number; mimeType: string }> {
    this.calls.push(`texture ${maxWidth}`);
    if (this.failWith) throw this.failWith;
    return { bytes: Buffer.from('fake jpeg texture'), width: maxWidth, height: Math.round((maxWidth * 9) / 16), mimeType: 'image/jpeg' };
  }
}
