import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { StudioBudgets } from '../limits/studio-budgets';

const COUNTED_AS_EDIT = 'studio:counted-as-edit';
/** Methods that change nothing: never counted. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Marks a route that starts an edit turn: it spends the session's edit budget (once the turn is
 * sure to start, through ScenesService's admission), not its budget of other writes.
 */
export const CountedAsEdit = () => SetMetadata(COUNTED_AS_EDIT, true);

/**
 * After StudioSessionGuard, on every studio API route: a write (any method but GET, HEAD and
 * OPTIONS) spends one of the session's STUDIO_WRITES_PER_MINUTE, unless the route is
 * `@CountedAsEdit()`. Every write route is counted unless it says otherwise, so a new one cannot
 * be left out by forgetting a decorator.
 */
@Injectable()
export class StudioWriteBudgetGuard implements CanActivate {
  constructor(
    private readonly budgets: StudioBudgets,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (READS.has(request.method) || this.reflector.get<boolean>(COUNTED_AS_EDIT, context.getHandler())) return true;
    // Set by StudioSessionGuard, which runs first on every studio API controller.
    await this.budgets.spendWrite(request.studioSession!.session.id);
    return true;
  }
}
