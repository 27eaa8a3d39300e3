/** The human API's shapes live in shared/, where the server's DTOs are checked against them. */
export * from '../../shared/api-types';
