import { AppConfig } from '@app/core';
import { UPLOADS_CONFIG } from '@app/image-assets';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { checkUploadRequest, readSingleFile, UploadTimeouts } from './single-file';
import { UploadGate } from './upload-gate';

/**
 * The upload route's whole read: the request checked before anything waits, a slot (the body
 * unread meanwhile), the one file read within the upload timeouts, and `use` run on it while the
 * slot is held (validation is the expensive part). A client that goes away while waiting leaves
 * the queue at once.
 */
@Injectable()
export class UploadReader {
  private readonly timeouts: UploadTimeouts;

  constructor(
    private readonly gate: UploadGate,
    config: AppConfig,
  ) {
    const { idleTimeoutMs, bodyTimeoutMs } = config.slice(UPLOADS_CONFIG);
    this.timeouts = { idleMs: idleTimeoutMs, totalMs: bodyTimeoutMs };
  }

  async withFile<T>(req: Request, res: Response, organizationId: string, limit: number, use: (file: Buffer) => Promise<T>): Promise<T> {
    const upload = checkUploadRequest(req, limit);
    const abandoned = new AbortController();
    const onClose = () => {
      if (!req.complete) abandoned.abort();
    };
    req.once('close', onClose);
    try {
      return await this.gate.run(
        organizationId,
        async () => use(await readSingleFile(req, res, upload, limit, this.timeouts)),
        abandoned.signal,
      );
    } finally {
      req.off('close', onClose);
    }
  }
}
