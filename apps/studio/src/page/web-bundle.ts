import { Injectable, Logger } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The built studio page (`npm run build:studio` → dist/apps/studio-web). Read once at boot: the
 * HTML is the same for every session; only response headers differ.
 */
@Injectable()
export class WebBundle {
  private readonly logger = new Logger(WebBundle.name);
  readonly dir: string | null;
  readonly indexHtml: string | null;

  constructor() {
    // Beside the compiled server in dist/apps (dist/apps/studio/src/page → dist/apps/studio-web),
    // or the repository's dist/ when running from sources (tests). From sources the first
    // candidate is apps/studio-web, the unbuilt page, recognisable by having no assets/.
    const candidates = [
      join(__dirname, '..', '..', '..', 'studio-web'),
      join(__dirname, '..', '..', '..', '..', 'dist', 'apps', 'studio-web'),
    ];
    this.dir = candidates.find((d) => existsSync(join(d, 'index.html')) && existsSync(join(d, 'assets'))) ?? null;
    this.indexHtml = this.dir ? readFileSync(join(this.dir, 'index.html'), 'utf8') : null;
    if (!this.dir) this.logger.warn('studio page not built (run npm run build): embed pages answer 503');
  }

  get assetsDir(): string | null {
    return this.dir ? join(this.dir, 'assets') : null;
  }
}
