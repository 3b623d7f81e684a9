public enum NDEFPlaceholder {}
