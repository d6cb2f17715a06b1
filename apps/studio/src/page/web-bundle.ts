import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where to read the page from instead (StudioModuleOptions.webBundleDir): the browser tests serve
 * the test build, dist/apps/studio-web-test, which carries their hooks (`window.__studio`).
 */
export const WEB_BUNDLE_DIR = Symbol('WEB_BUNDLE_DIR');

/**
 * The built studio page (`npm run build:studio` → dist/apps/studio-web). Read once at boot: the
 * HTML is the same for every session; only response headers differ.
 */
@Injectable()
export class WebBundle {
  private readonly logger = new Logger(WebBundle.name);
  readonly dir: string | null;
  readonly indexHtml: string | null;

  constructor(@Optional() @Inject(WEB_BUNDLE_DIR) chosenDir: string | null = null) {
    // Beside the compiled server in dist/apps (dist/apps/studio/src/page → dist/apps/studio-web),
    // or the repository's dist/ when running from sources (tests). From sources the first
    // candidate is apps/studio-web, the unbuilt page, recognisable by having no assets/.
    const candidates = chosenDir
      ? [chosenDir]
      : [join(__dirname, '..', '..', '..', 'studio-web'), join(__dirname, '..', '..', '..', '..', 'dist', 'apps', 'studio-web')];
    this.dir = candidates.find((d) => existsSync(join(d, 'index.html')) && existsSync(join(d, 'assets'))) ?? null;
    this.indexHtml = this.dir ? readFileSync(join(this.dir, 'index.html'), 'utf8') : null;
    if (!this.dir) this.logger.warn('studio page not built (run npm run build): embed pages answer 503');
  }

  get assetsDir(): string | null {
    return this.dir ? join(this.dir, 'assets') : null;
  }
}
