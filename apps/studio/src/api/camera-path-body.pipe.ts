import { DomainError, DomainValidationPipe, ErrorCode, FieldError, isDomainError, MAX_FIELD_ERRORS } from '@app/core';
import { cameraPathDocumentErrorsYielding, isPlainObject } from '@scene-studio/camera-path';
import { ArgumentMetadata, createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import type { Request } from 'express';

/**
 * The body of a camera path's POST or PUT: `name` and `kind` by the DTO, the document by the
 * camera-path format's own validator (packages/camera-path), the one the studio page imports
 * files with. Its errors are the DTO's kind — field, code, message — named from the body
 * (`document.keyframes[2].quaternion`), listed together, at most MAX_FIELD_ERRORS. Plain loops
 * over plain values: a 20 000-sample take costs milliseconds, where class-validator spent about
 * 70 µs a sample.
 */
@Injectable()
export class CameraPathBodyPipe implements PipeTransform<unknown, Promise<unknown>> {
  private readonly dto = new DomainValidationPipe();

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const asBody: ArgumentMetadata = { type: 'body', metatype: metadata.metatype };
    const errors: FieldError[] = [];
    // A body that is not an object was answered before (invalid_json); a document that is not an
    // object has its DTO error.
    const document = isPlainObject(value) ? value.document : undefined;
    let dto: { document?: unknown } | undefined;
    try {
      // The DTO sees the document as an empty object: it only checks that it is one, and
      // class-transformer would otherwise copy all of it (measured: about 0.4 s of event loop for
      // a take of 20 000 samples, more than parsing it).
      const shallow = isPlainObject(value) && isPlainObject(document) ? { ...value, document: {} } : value;
      dto = (await this.dto.transform(shallow, asBody)) as { document?: unknown };
    } catch (e) {
      if (!isDomainError(e, ErrorCode.ValidationFailed)) throw e;
      errors.push(...(e.errors ?? []));
    }
    if (isPlainObject(document)) {
      // A take's 20 000 samples are checked a thousand at a time, other requests served between.
      errors.push(...(await cameraPathDocumentErrorsYielding(document, { at: 'document', max: MAX_FIELD_ERRORS - errors.length })));
    }
    if (errors.length > 0 || !dto) throw DomainError.validation(errors.slice(0, MAX_FIELD_ERRORS));
    dto.document = document;
    return dto;
  }
}

const RequestBody = createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<Request>().body);

/**
 * `@Body()` for a camera path's write: a custom parameter, which the app's global validation pipe
 * leaves alone, validated by the pipe above.
 */
export const CameraPathBody = (): ParameterDecorator => RequestBody(new CameraPathBodyPipe());
