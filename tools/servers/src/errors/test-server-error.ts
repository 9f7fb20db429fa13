/** Base class of every error thrown by `@distlock/test-servers`. */
export class TestServerError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
