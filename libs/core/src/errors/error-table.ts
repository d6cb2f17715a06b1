import { CORE_ERRORS, ErrorCode, ErrorDeclaration, ErrorDeclarations } from './error-codes';

type CodesOf<D> = D extends ErrorDeclarations<infer C> ? C : never;

/**
 * Every code one process answers with and its HTTP status and title: core's codes and those the
 * app's libs declare (`<lib>.errors.ts`). Assembled once by each HTTP app (`CoreModule.forRoot({
 * errors })`) and read by the one place errors become HTTP (`sendProblem`). A code declared twice
 * stops the boot: two libs would otherwise disagree on what it answers.
 */
export class ErrorTable<C extends string = string> {
  private readonly entries = new Map<string, ErrorDeclaration>();

  private constructor(declarations: ReadonlyArray<ErrorDeclarations>) {
    for (const declared of [CORE_ERRORS, ...declarations]) {
      for (const [code, declaration] of Object.entries(declared)) {
        if (this.entries.has(code)) throw new Error(`error code "${code}" is declared twice`);
        this.entries.set(code, declaration);
      }
    }
  }

  static of<D extends ErrorDeclarations[]>(...declarations: D): ErrorTable<ErrorCode | CodesOf<D[number]>> {
    return new ErrorTable(declarations);
  }

  /** What `code` answers; a code no lib of this process declared is a wiring bug and answers as `internal_error`. */
  get(code: string): ErrorDeclaration | undefined {
    return this.entries.get(code);
  }

  has(code: string): code is C {
    return this.entries.has(code);
  }

  /** Every code, in declaration order (core's, then each lib's). */
  codes(): C[] {
    return [...this.entries.keys()] as C[];
  }
}

/** Core's codes alone: processes whose HTTP is only core's (the worker's ops port, the CLI). */
export const CORE_ERROR_TABLE = ErrorTable.of();
