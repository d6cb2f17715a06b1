/** The safe, structured error of a failed operation: our words only, never provider output. */
export interface OperationError {
  code: string;
  message: string;
  retryable: boolean;
}

export const OperationFailures = {
  generationFailed: (): OperationError => ({
    code: 'generation_failed',
    message: 'The scene could not be generated. Try again, perhaps with a different prompt.',
    retryable: true,
  }),
  cancelled: (): OperationError => ({
    code: 'cancelled',
    message: 'The operation was cancelled.',
    retryable: true,
  }),
  /** The provider reported the job cancelled (test mode's `test:cancel`): as a partner's cancel reads, in other words. */
  cancelledAtProvider: (): OperationError => ({
    code: 'cancelled',
    message: 'The generation was cancelled at the provider.',
    retryable: true,
  }),
  sceneDeleted: (): OperationError => ({
    code: 'scene_deleted',
    message: 'The scene was deleted before the operation finished.',
    retryable: false,
  }),
};
