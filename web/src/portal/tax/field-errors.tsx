// Moved to web/src/ui/field-errors.tsx (the admin dashboard shows field errors too); kept so that branches in flight still compile.
export { FieldError, fieldErrors } from '../../ui/field-errors';
