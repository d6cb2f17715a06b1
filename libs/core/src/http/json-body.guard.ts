import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { DomainError, ErrorCode } from '../errors';

/**
 * For routes that take a JSON body: any other declared content type (multipart included, which
 * only the upload route reads) is 415. A missing body falls through to validation,
 * which answers `invalid_json`.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const type = context.switchToHttp().getRequest<Request>().headers['content-type'];
    if (type === undefined) return true;
    if (type.split(';', 1)[0].trim().toLowerCase() !== 'application/json') {
      throw new DomainError(ErrorCode.UnsupportedMediaType, 'Send the body as application/json.');
    }
    return true;
  }
}
